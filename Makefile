# The README's commands. Only Python 3.11+ and make are needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# make run is for development: debug on, embedded SQLite unless DATABASE_URL says otherwise.
DEV_ENV := DJANGO_DEBUG=1

.PHONY: run test install install-run screenshots setup lint fuzz messages clean bench-stats bench-import bench bench-ab client lrs-venv fonts lighthouse deploy-check bench-school

# make run installs what the site needs (requirements.txt), printing each package as it goes;
# make test and the tools add the test toolchain (requirements-dev.txt) to the same virtualenv.
# Packages go in with uv (from PyPI, installed into the virtualenv by pip first): the same pins
# as pip would install, in seconds where pip takes a minute.
UV := $(VENV)/bin/uv
UV_INSTALL := $(UV) pip install --python $(PY)

$(UV):
	@echo "== Making the virtualenv $(VENV) and its installer (uv)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --progress-bar on uv

$(VENV)/.installed-run: requirements.txt | $(UV)
	@echo "== Installing the site's packages into $(VENV) (requirements.txt)"
	$(UV_INSTALL) -r requirements.txt
	touch $@

$(VENV)/.installed: $(VENV)/.installed-run requirements-dev.txt
	@echo "== Installing the test tools into $(VENV) (requirements-dev.txt)"
	$(UV_INSTALL) -r requirements-dev.txt
	touch $@

install-run: $(VENV)/.installed-run
install: $(VENV)/.installed

# The test LRS (ralph, tests/integrations/lrs.py) in a virtualenv of its own: it pins its own
# fastapi and uvicorn. The xAPI delivery tests skip without it (and fail in CI, which makes it).
LRS_VENV ?= .venv-lrs
$(LRS_VENV)/.installed: requirements-lrs.txt | $(UV)
	$(PYTHON) -m venv $(LRS_VENV)
	$(UV) pip install --quiet --python $(LRS_VENV)/bin/python -r requirements-lrs.txt
	touch $@

lrs-venv: $(LRS_VENV)/.installed

setup: install-run
	@echo "== Creating the database, loading the course and its quizzes, making the demo accounts"
	$(DEV_ENV) $(PY) manage.py migrate --noinput
	$(DEV_ENV) $(PY) manage.py loaddata fixtures/*.json
	$(DEV_ENV) $(PY) manage.py seed_demo

run: setup
	@echo ""
	@echo "  Students: http://$(HOST):$(PORT)/en/        log in as student / student"
	@echo "  Editors:  http://$(HOST):$(PORT)/en/admin/  log in as editor / editor"
	@echo "  Teachers: http://$(HOST):$(PORT)/en/admin/  log in as teacher / teacher"
	@echo "  Other languages: /ur/ (Urdu), /sn/ (Shona), /id/ (Indonesian)"
	@echo ""
	$(DEV_ENV) $(PY) manage.py runserver $(HOST):$(PORT)

# The README's pictures (docs/images/), from the browser tests' set-up (tests/browser/test_screenshots.py).
screenshots: install
	LMS_SCREENSHOTS=1 DATABASE_URL= $(PY) -m pytest -q tests/browser/test_screenshots.py

# The whole suite on SQLite, then on PostgreSQL too when DATABASE_URL points to one.
# The browser tests (pages, not queries) and the tests marked database_independent run in the
# SQLite pass only: every machine has it, and they would do the same work twice.
# Each pass runs in one process per core and one more (pytest-xdist; PYTEST_WORKERS=0: in one
# process): many tests wait on a server, a browser or a subprocess they started, and the extra
# worker keeps the cores busy meanwhile (on 2 cores, 3 workers took 254 s where 2 took 294 s).
# Tests that share a server are kept on one worker (xdist_group, tests/conftest.py).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST_XDIST := -n $(PYTEST_WORKERS) --dist loadgroup
test: install
	DATABASE_URL= $(PY) -m pytest $(PYTEST_XDIST) $(PYTEST_ARGS)
	@case "$$DATABASE_URL" in \
	  postgres*) echo "== PostgreSQL: $$DATABASE_URL"; $(PY) -m pytest --ignore=tests/browser -m "not database_independent" $(PYTEST_XDIST) $(PYTEST_ARGS) ;; \
	  *) echo "== PostgreSQL run skipped: DATABASE_URL does not point to PostgreSQL" ;; \
	esac

# schemathesis against the OpenAPI schema on a live gunicorn with a student token (bounded).
fuzz: install
	PY=$(PY) scripts/fuzz_api.sh

# A Python client for integrators, generated from the API's schema by openapi-python-client
# (its settings: scripts/openapi-client.yaml): artifacts/client, a package `lms_api_client`.
client: install
	@mkdir -p artifacts
	$(DEV_ENV) $(PY) manage.py spectacular --validate --fail-on-warn --file artifacts/schema.yaml
	$(VENV)/bin/openapi-python-client generate --path artifacts/schema.yaml \
	  --config scripts/openapi-client.yaml --output-path artifacts/client --overwrite
	@echo "Install it with: pip install ./artifacts/client"

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# Throughput and latency of the student paths against a bare-Django ceiling, the
# burst and the two-server check (benchmarks/run.py; a few minutes). Needs the local
# PostgreSQL (BENCH_DATABASE_URL, default lms_bench, recreated each run) and Redis
# (BENCH_REDIS_URL, default db 14, emptied); installs wrk from Debian if missing.
# BENCH_WORKERS, BENCH_THREADS, BENCH_CONNECTIONS, BENCH_DURATION tune the run.
BENCH_WORKERS ?= 4
BENCH_THREADS ?= 2
BENCH_CONNECTIONS ?= 16
BENCH_DURATION ?= 10
# A change against a revision under load: both served at once, alternating 2-s slices
# (benchmarks/ab.py). make bench-ab REV=main MODE=api; a setting against the default:
# make bench-ab REV=HEAD MODE=api BENCH_AB_REV_ENV=DJANGO_API_THROTTLE_LOCAL_SHARE=0
REV ?= HEAD
MODE ?= api
bench-ab: install
	$(PY) -m benchmarks.ab $(REV) $(MODE)

bench: install
	BENCH_WORKERS=$(BENCH_WORKERS) BENCH_THREADS=$(BENCH_THREADS) BENCH_CONNECTIONS=$(BENCH_CONNECTIONS) \
	BENCH_DURATION=$(BENCH_DURATION) $(PY) -m benchmarks.run

# A whole school at once (benchmarks/school.py; about 12 minutes): 10,000 students start within
# 60 s and answer 8 questions with think time, through nginx, gunicorn (deploy/) and PgBouncer,
# while gunicorn reloads twice. Same database and Redis as make bench; needs Debian's nginx and
# pgbouncer. BENCH_SCHOOL_STUDENTS, _SPREAD, _THINK_MIN, _THINK_MAX, _RELOADS tune it.
bench-school: install
	$(PY) -m benchmarks.school

# The item statistics page with 100,000 answers, on PostgreSQL (not a timed test):
# median and p95 of 20 renders, written to benchmarks/results/statistics-page.json.
bench-stats: install
	$(PY) benchmarks/statistics_page.py

# How long the largest bank one import takes (1,000 questions) takes, as GIFT and Moodle XML.
bench-import: install
	$(PY) benchmarks/import_bank.py

# The Urdu web font: the vendored Noto Nastaliq Urdu cut down to the Urdu alphabet (scripts/font_subset.py).
fonts: install
	$(PY) scripts/font_subset.py

# Lighthouse (npm, pinned, in .lighthouse/) on the student pages in English and Urdu, served by
# gunicorn as in production, with Debian's chromium; reports in artifacts/lighthouse/ (minutes).
LIGHTHOUSE_VERSION ?= 12.8.2
.lighthouse/node_modules/lighthouse/package.json:
	npm install --prefix .lighthouse --no-audit --no-fund --no-save lighthouse@$(LIGHTHOUSE_VERSION)

lighthouse: install .lighthouse/node_modules/lighthouse/package.json
	$(PY) scripts/lighthouse.py

# The whole deployment of deploy/ on this machine (tests/deploy/stack.py): nginx, gunicorn,
# PgBouncer, a throwaway PostgreSQL primary and its streaming replica, Redis, each on free ports;
# the student flows, the HTTP races, the proxy headers and a graceful reload through nginx (about
# a minute). Needs Debian's nginx, pgbouncer, redis-server and PostgreSQL 15; DATABASE_URL is
# the test run's own database (the local PostgreSQL).
DEPLOY_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/lms
deploy-check: install
	DATABASE_URL=$(DEPLOY_DATABASE_URL) $(PY) -m pytest tests/deploy -p no:randomly -q $(PYTEST_ARGS)

# Rebuild the catalogues after changing user-visible strings (needs GNU gettext).
messages: install
	$(DEV_ENV) $(PY) manage.py makemessages --locale ur --locale sn --locale id --no-obsolete --no-location \
	  --ignore tests --ignore scripts --ignore benchmarks --ignore artifacts
	$(DEV_ENV) $(PY) manage.py compilemessages --ignore .venv

clean:
	rm -rf $(VENV) $(LRS_VENV) db.sqlite3 staticfiles .pytest_cache .lighthouse
