-- One wrk script for every workload; BENCH_MODE picks it:
--   ceiling    GET /bench/ceiling/ (anonymous; one SELECT, one INSERT)
--   page       GET a question page (session and CSRF cookies), round robin over the "read" students
--   dashboard  GET /en/ (session and CSRF cookies), round robin over the "read" students
--   web        POST an answer through the form (session + CSRF cookie), each (attempt, question) once
--   api        POST an answer through the API (token), each (attempt, question) once
-- BENCH_DATA is the directory benchmarks/setup_data.py wrote; BENCH_WRK_THREADS is wrk's -t.
-- Each thread takes every n-th student line; answers go question by question
-- (all of its students' question 1, then question 2...), so that concurrent
-- requests rarely wait for the same attempt's row lock. A thread that runs
-- out of fresh pairs starts over: those repeats are counted in "wraps". A
-- workload measured again starts past the pairs used before (BENCH_SKIP).
-- done() prints one line "BENCH_RESULT {json}" for benchmarks/run.py.

local mode = os.getenv("BENCH_MODE")
local data = os.getenv("BENCH_DATA")
local nthreads = tonumber(os.getenv("BENCH_WRK_THREADS") or "1")

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local function split(line)
  local fields = {}
  for field in line:gmatch("%S+") do
    table.insert(fields, field)
  end
  return fields
end

local function lines(name)
  local rows = {}
  local index = 0
  for line in io.lines(data .. "/" .. name) do
    if index % nthreads == tid then
      table.insert(rows, split(line))
    end
    index = index + 1
  end
  return rows
end

local rows, pairs_, cursor = {}, {}, 0
issued, wraps, c200, c201, c302, cother = 0, 0, 0, 0, 0, 0

function init(args)
  if mode == "page" or mode == "dashboard" then
    rows = lines("read.txt")
  elseif mode == "web" or mode == "api" then
    rows = lines(mode .. ".txt")
    local questions = {}
    for line in io.lines(data .. "/questions.txt") do
      table.insert(questions, split(line))
    end
    for _, question in ipairs(questions) do
      for _, row in ipairs(rows) do
        table.insert(pairs_, { row, question })
      end
    end
    -- BENCH_SKIP: per thread, the pairs an earlier run of this workload used ("12,15").
    local skip = {}
    for count in (os.getenv("BENCH_SKIP") or ""):gmatch("%d+") do
      table.insert(skip, tonumber(count))
    end
    cursor = skip[tid + 1] or 0
  end
end

local function next_row(list)
  cursor = cursor + 1
  if cursor > #list then
    cursor = 1
    if mode == "web" or mode == "api" then
      wraps = wraps + 1
    end
  end
  return list[cursor]
end

-- The session and the CSRF cookie, as a student's browser sends them on every request.
local function cookies(row)
  return "sessionid=" .. row[1] .. "; csrftoken=" .. row[2]
end

function request()
  issued = issued + 1
  if mode == "ceiling" then
    return wrk.format("GET", "/bench/ceiling/")
  elseif mode == "page" then
    local row = next_row(rows)
    return wrk.format("GET", "/en/attempts/" .. row[3] .. "/questions/1/", { ["Cookie"] = cookies(row) })
  elseif mode == "dashboard" then
    local row = next_row(rows)
    return wrk.format("GET", "/en/", { ["Cookie"] = cookies(row) })
  elseif mode == "web" then
    local pair = next_row(pairs_)
    local row, question = pair[1], pair[2]
    local body = "csrfmiddlewaretoken=" .. row[2] .. "&question=" .. question[2] .. "&choice=" .. question[3]
    return wrk.format("POST", "/en/attempts/" .. row[3] .. "/questions/" .. question[1] .. "/", {
      ["Cookie"] = cookies(row),
      ["Content-Type"] = "application/x-www-form-urlencoded",
    }, body)
  elseif mode == "api" then
    local pair = next_row(pairs_)
    local row, question = pair[1], pair[2]
    local body = '{"question": ' .. question[2] .. ', "choice": ' .. question[3] .. "}"
    return wrk.format("POST", "/api/v1/attempts/" .. row[2] .. "/answers/", {
      ["Authorization"] = "Token " .. row[1],
      ["Content-Type"] = "application/json",
    }, body)
  end
end

function response(status, headers, body)
  if status == 200 then
    c200 = c200 + 1
  elseif status == 201 then
    c201 = c201 + 1
  elseif status == 302 then
    c302 = c302 + 1
  else
    cother = cother + 1
  end
end

function done(summary, latency, requests)
  -- The latency distribution as 1000 quantiles (0.1%, 0.2% ... 100%): run.py merges slices with them.
  local quantiles = {}
  for step = 1, 1000 do
    table.insert(quantiles, string.format("%d", latency:percentile(step / 10)))
  end
  local per_thread = {}
  for _, thread in ipairs(threads) do
    table.insert(per_thread, string.format(
      '{"tid": %d, "issued": %d, "wraps": %d, "200": %d, "201": %d, "302": %d, "other": %d}',
      thread:get("tid"), thread:get("issued"), thread:get("wraps"), thread:get("c200"), thread:get("c201"),
      thread:get("c302"), thread:get("cother")))
  end
  io.write(string.format(
    'BENCH_RESULT {"mode": "%s", "duration_us": %d, "requests": %d, "errors": {"connect": %d, "read": %d, '
      .. '"write": %d, "status": %d, "timeout": %d}, "latency_us": {"p50": %d, "p90": %d, "p99": %d, "max": %d, '
      .. '"mean": %.1f}, "quantiles_us": [%s], "threads": [%s]}\n',
    mode, summary.duration, summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, latency.mean, table.concat(quantiles, ","), table.concat(per_thread, ", ")))
end
