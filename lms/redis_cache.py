"""Django's Redis cache, reusing one client per connection pool.

``django.core.cache.backends.redis`` builds a new ``redis.Redis`` object for
every cache operation, and redis-py fills a case-insensitive dictionary of
some two hundred response callbacks in each: about a tenth of a millisecond
per operation, twice a page (session, quiz content) and more with throttles.
A client only holds its pool and those callbacks, and redis-py clients are
safe to share between threads, so one per pool is kept.
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
