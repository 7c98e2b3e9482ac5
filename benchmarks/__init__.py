"""``make bench``: throughput and latency of the student paths against a bare-Django ceiling."""
