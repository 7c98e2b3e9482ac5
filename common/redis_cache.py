"""Django's Redis cache, reusing one client per connection pool.

``django.core.cache.backends.redis`` builds a new ``redis.Redis`` object for
every cache operation, and redis-py fills a case-insensitive dictionary of
some two hundred response callbacks in each: about a tenth of a millisecond
per operation, twice a page (session, quiz content) and more with throttles.
A client only holds its pool and those callbacks, and redis-py clients are
safe to share between threads, so one per pool is kept.

``incr_in_window`` counts an event in a window in one round trip (the API's
rate throttles count every request), where Django's ``add`` then ``incr``
takes three (``incr`` checks that the key exists first). It is one command,
a Lua script (atomic in Redis, as MULTI/EXEC is, but one request and one
reply for redis-py to build and parse instead of five).
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ReusedClientRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient

    _window_script = None

    def incr_in_window(self, key: str, window: int, *, start_key: str, start, amount: int = 1) -> int:
        """Count ``amount`` events under ``key``, which is created (expiring in ``window``
        seconds) by its first events, with ``start_key`` set to ``start`` then; the count so
        far. One command (``_WINDOW_COUNT``), the first events of a window included."""
        key, start_key = self.make_and_validate_key(key), self.make_and_validate_key(start_key)
        client = self._cache.get_client(key, write=True)
        if self._window_script is None:
            self._window_script = client.register_script(_WINDOW_COUNT)
        # EVALSHA; the script is sent once more only if Redis lost it (a restart, SCRIPT FLUSH).
        start = self._cache._serializer.dumps(start)
        return int(self._window_script(keys=[key, start_key], args=[window, start, amount], client=client))


# Runs atomically in Redis: no other command comes between its INCR and the expiry it sets.
_WINDOW_COUNT = """
local count = redis.call("INCRBY", KEYS[1], ARGV[3])
if count == tonumber(ARGV[3]) then
    redis.call("EXPIRE", KEYS[1], ARGV[1])
    redis.call("SET", KEYS[2], ARGV[2], "EX", ARGV[1])
end
return count
"""
