"""A class answering while the fuzzer runs (scripts/fuzz_api.sh): students who start
attempts, answer them, race an answer against a finish and finish twice at once,
through the API of a live server, until a stop file appears.

It is the concurrent load under which the schema fuzz runs, so that races between a
student's requests (answer against finish, finish against finish, start against start)
and the fuzzer's odd requests meet on the same tables. Any 5xx, or a connection the
server drops, is a failure: the counts by status and the failures go to stdout, and the
exit status is 1 if there was one.

    python scripts/fuzz_answerer.py BASE_URL TOKENS_FILE STOP_FILE
"""

import json
import random
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

TIMEOUT = 15
STUDENTS_AT_ONCE = 4


class Client:
    def __init__(self, base, token, results):
        self.base = base.rstrip("/")
        self.token = token
        self.results = results

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Token {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        except OSError as error:  # a dropped connection or a time-out: the server failed us
            self.results.record(method, path, f"connection: {error}", b"")
            return None, None
        self.results.record(method, path, status, payload)
        try:
            return status, json.loads(payload or b"null")
        except ValueError:
            return status, None


class Results:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses = Counter()
        self.failures = []

    def record(self, method, path, status, payload):
        with self.lock:
            self.statuses[status] += 1
            if not isinstance(status, int) or status >= 500:
                self.failures.append(f"{method} {path} -> {status}: {payload[:300]!r}")


def in_parallel(*calls):
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return [future.result() for future in [pool.submit(call) for call in calls]]


def one_attempt(client, slug, rng):
    status, attempt = client.call("POST", f"/api/v1/quizzes/{slug}/attempts/")
    if status not in (200, 201) or not attempt:
        return
    pk = attempt["id"]
    questions = [q for q in attempt.get("questions", []) if q.get("choices") and not q.get("feedback")]
    rng.shuffle(questions)
    finish = f"/api/v1/attempts/{pk}/finish/"
    for index, question in enumerate(questions):
        body = {"question": question["id"], "choice": rng.choice(question["choices"])["id"]}
        answer = partial(client.call, "POST", f"/api/v1/attempts/{pk}/answers/", body)
        if index == len(questions) - 1 and rng.random() < 0.5:
            # The last answer sent while the student (another tab) finishes the attempt.
            in_parallel(answer, partial(client.call, "POST", finish))
        else:
            answer()
            if rng.random() < 0.2:
                answer()  # the same answer again, as a phone resends it
    # Finished twice at once, as a double tap does; then read back.
    in_parallel(partial(client.call, "POST", finish), partial(client.call, "POST", finish))
    client.call("GET", f"/api/v1/attempts/{pk}/")
    if rng.random() < 0.3:
        client.call("POST", f"/api/v1/attempts/{pk}/practice/")


def student(base, token, stop, results, seed):
    rng = random.Random(seed)
    client = Client(base, token, results)
    while not stop.exists():
        status, page = client.call("GET", "/api/v1/quizzes/")
        slugs = [quiz["slug"] for quiz in (page or {}).get("results", [])] if status == 200 else []
        if not slugs:
            time.sleep(0.5)
            continue
        slug = rng.choice(slugs)
        if rng.random() < 0.2:
            # Two starts at once (a double tap on Start): one attempt, never a 5xx.
            start = f"/api/v1/quizzes/{slug}/attempts/"
            in_parallel(partial(client.call, "POST", start), partial(client.call, "POST", start))
        one_attempt(client, slug, rng)
        client.call("GET", "/api/v1/progress/")


def main(base, tokens_file, stop_file):
    tokens = Path(tokens_file).read_text().split()
    stop, results = Path(stop_file), Results()
    with ThreadPoolExecutor(max_workers=STUDENTS_AT_ONCE) as pool:
        futures = [
            pool.submit(student, base, token, stop, results, seed)
            for seed, token in enumerate(tokens[:STUDENTS_AT_ONCE])
        ]
        for future in futures:
            future.result()
    counts = ", ".join(f"{status}: {n}" for status, n in sorted(results.statuses.items(), key=str))
    print(f"answerer: {sum(results.statuses.values())} requests ({counts})")
    for failure in results.failures:
        print(f"answerer failure: {failure}")
    return 1 if results.failures or not results.statuses else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
