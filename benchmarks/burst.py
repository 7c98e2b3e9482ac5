"""The burst: a class of students starting the same quiz at once, through the API.

Each simulated student arrives at a random moment within ``spread`` seconds,
reads the quiz (GET), starts an attempt (POST), then answers the 8 questions
one by one with a think time before each (uniform between ``think_min`` and
``think_max`` seconds), and finishes the attempt. A plain asyncio HTTP/1.1
client (standard library only), one connection per request as a browser
behind a mobile network often has it.

``two_server_check``: every answer is sent twice at the same moment, once to
each of two servers sharing PostgreSQL and Redis (a double click through a
load balancer); exactly one must record it (201) and the other answer with
the same feedback (200), and there must be exactly one row per answer.
"""

import asyncio
import json
import random
import time
from dataclasses import dataclass, field

REQUEST_TIMEOUT = 30.0


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    answers_acknowledged: int = 0
    answers_repeated: int = 0

    def record(self, kind: str, status: int, seconds: float) -> None:
        self.latencies.append(seconds)
        self.by_kind.setdefault(kind, []).append(seconds)
        key = f"{kind} {status}"
        self.statuses[key] = self.statuses.get(key, 0) + 1

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def request(host: str, port: int, method: str, path: str, token: str, body: dict | None = None):
    """(status, parsed JSON body or None) of one request on a new connection."""
    payload = json.dumps(body).encode() if body is not None else b""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Token {token}\r\n"
        f"Accept: application/json\r\nConnection: close\r\nContent-Length: {len(payload)}\r\n"
        + ("Content-Type: application/json\r\n" if body is not None else "")
        + "\r\n"
    )
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), REQUEST_TIMEOUT)
    try:
        writer.write(head.encode() + payload)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), REQUEST_TIMEOUT)
    finally:
        writer.close()
    header, _sep, content = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    try:
        return status, json.loads(content) if content else None
    except ValueError:
        return status, None


async def timed(stats: Stats, kind: str, *args, **kwargs):
    started = time.perf_counter()
    try:
        status, data = await request(*args, **kwargs)
    except (OSError, asyncio.IncompleteReadError, IndexError, ValueError, TimeoutError) as error:
        stats.errors.append(f"{kind}: {type(error).__name__}: {error}")
        return None, None
    stats.record(kind, status, time.perf_counter() - started)
    return status, data


async def student(stats: Stats, host, port, token, quiz, questions, delay, think) -> None:
    await asyncio.sleep(delay)
    status, _ = await timed(stats, "quiz", host, port, "GET", f"/api/v1/quizzes/{quiz}/?lang=ur", token)
    if status != 200:
        stats.errors.append(f"quiz: {status}")
        return
    status, attempt = await timed(stats, "start", host, port, "POST", f"/api/v1/quizzes/{quiz}/attempts/", token)
    if status != 201:
        stats.errors.append(f"start: {status}")
        return
    for question in questions:
        await asyncio.sleep(random.uniform(*think))
        body = {"question": question["id"], "choice": random.choice(question["choices"])}
        path = f"/api/v1/attempts/{attempt['id']}/answers/?lang=ur"
        status, _ = await timed(stats, "answer", host, port, "POST", path, token, body)
        if status == 201:
            stats.answers_acknowledged += 1
        else:
            stats.errors.append(f"answer: {status}")
    status, _ = await timed(stats, "finish", host, port, "POST", f"/api/v1/attempts/{attempt['id']}/finish/", token)
    if status != 200:
        stats.errors.append(f"finish: {status}")


async def burst(
    host,
    port,
    tokens,
    quiz,
    questions,
    *,
    spread: float,
    think: tuple[float, float],
    deadline: float,
    stats: Stats | None = None,
) -> dict:
    """``deadline``: seconds after which the students still going are stopped and counted as errors.
    ``stats``: where the requests are counted as they end (to follow the run), a new one by default."""
    stats = stats if stats is not None else Stats()
    started = time.perf_counter()
    tasks = [
        asyncio.create_task(student(stats, host, port, token, quiz, questions, random.uniform(0, spread), think))
        for token in tokens
    ]
    _done, pending = await asyncio.wait(tasks, timeout=deadline)
    for task in pending:
        task.cancel()
    if pending:
        stats.errors.append(f"{len(pending)} students not done after {deadline:.0f} s")
        await asyncio.gather(*pending, return_exceptions=True)
    elapsed = time.perf_counter() - started
    return {
        "students": len(tokens),
        "spread_s": spread,
        "think_s": list(think),
        "elapsed_s": round(elapsed, 1),
        "requests": len(stats.latencies),
        "requests_per_s": round(len(stats.latencies) / elapsed, 1),
        "p50_ms": round(stats.percentile(0.50) * 1000, 1),
        "p95_ms": round(stats.percentile(0.95) * 1000, 1),
        "p99_ms": round(stats.percentile(0.99) * 1000, 1),
        "max_ms": round(max(stats.latencies, default=0) * 1000, 1),
        "p95_ms_by_kind": {
            kind: round(sorted(values)[min(len(values) - 1, int(0.95 * len(values)))] * 1000, 1)
            for kind, values in stats.by_kind.items()
        },
        "statuses": stats.statuses,
        "errors": len(stats.errors),
        "error_examples": stats.errors[:5],
        "answers_acknowledged": stats.answers_acknowledged,
        "students_unfinished": len(pending),
    }


async def _double_answer(stats, servers, token, attempt_id, question):
    body = {"question": question["id"], "choice": question["choices"][0]}
    path = f"/api/v1/attempts/{attempt_id}/answers/"
    results = await asyncio.gather(
        *(timed(stats, f"answer@{port}", host, port, "POST", path, token, body) for host, port in servers)
    )
    codes = sorted(status for status, _data in results)
    if codes == [200, 201]:
        stats.answers_acknowledged += 1
        stats.answers_repeated += 1
        first, second = (data for _status, data in results)
        if (first or {}).get("correct_choice") != (second or {}).get("correct_choice"):
            stats.errors.append("the two servers gave different feedback")
    else:
        stats.errors.append(f"double answer: {codes}")


async def _two_server_student(stats, servers, token, quiz, questions, delay):
    await asyncio.sleep(delay)
    host, port = servers[random.randrange(len(servers))]
    status, attempt = await timed(stats, "start", host, port, "POST", f"/api/v1/quizzes/{quiz}/attempts/", token)
    if status != 201:
        stats.errors.append(f"start: {status}")
        return
    for question in questions:
        await _double_answer(stats, servers, token, attempt["id"], question)


async def two_server_check(servers, tokens, quiz, questions, *, spread: float) -> dict:
    stats = Stats()
    started = time.perf_counter()
    await asyncio.gather(
        *(_two_server_student(stats, servers, token, quiz, questions, random.uniform(0, spread)) for token in tokens)
    )
    elapsed = time.perf_counter() - started
    return {
        "servers": [f"{host}:{port}" for host, port in servers],
        "students": len(tokens),
        "answers_sent_twice": len(tokens) * len(questions),
        "elapsed_s": round(elapsed, 1),
        "p95_ms": round(stats.percentile(0.95) * 1000, 1),
        "statuses": stats.statuses,
        "errors": len(stats.errors),
        "error_examples": stats.errors[:5],
        "answers_acknowledged": stats.answers_acknowledged,
        "answers_repeated": stats.answers_repeated,
    }
