"""Iteration order of C++ unordered containers, as libc++ and libstdc++ lay them out.

CARLA keeps a frame's collision records in a `std::unordered_set` and the blocked
query's actors in a `std::unordered_map<uint32_t, ...>`, so the order of the collision
records in a log and of some rows in the blocked query is the containers' iteration
order. Both libraries keep one singly linked list of nodes with each bucket's nodes
contiguous, and a bucket array pointing at the node *before* the bucket's first node;
they differ in bucket counts, rehash points and how a rehash relinks the list.
`UnorderedTable` replays inserts, erases and clears exactly as the library does, so
iterating it gives the library's order. `std::hash` of an integer is the identity in
both 64-bit Linux libraries; the collision record hashes as `(id1 << 32) + id2`.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Hashable, Iterable, Iterator

from recorder.errors import RecorderError

LIBCXX = "libc++"
LIBSTDCXX = "libstdc++"
LIBRARIES = (LIBCXX, LIBSTDCXX)

_SIZE_MASK = (1 << 64) - 1
_HEAD = object()  # the list's before-begin node

# libstdc++'s bucket counts (hashtable-aux.cc, 64-bit table without the sentinel).
_GNU_PRIMES = (
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79,
    83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241,
    257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761,
    823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357,
    2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949,
    7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183,
    20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201,
    53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271,
    136607, 147793, 159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261, 299951,
    324503, 351061, 379787, 410857, 444487, 480881, 520241, 562841, 608903, 658753, 712697,
    771049, 834181, 902483, 976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659,
    1693859, 1832561, 1982627, 2144977, 2320627, 2510653, 2716249, 2938679, 3179303,
    3439651, 3721303, 4026031, 4355707, 4712381, 5098259, 5515729, 5967347, 6456007,
    6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489, 12117689, 13109983,
    14183539, 15345007, 16601593, 17961079, 19431899, 21023161, 22744717, 24607243,
    26622317, 28802401, 31160981, 33712729, 36473443, 39460231, 42691603, 46187573,
    49969847, 54061849, 58488943, 63278561, 68460391, 74066549, 80131819, 86693767,
    93793069, 101473717, 109783337, 118773397, 128499677, 139022417, 150406843, 162723577,
    176048909, 190465427, 206062531, 222936881, 241193053, 260944219, 282312799, 305431229,
    330442829, 357502601, 386778277, 418451333, 452718089, 489790921, 529899637, 573292817,
    620239453, 671030513, 725980837, 785430967, 849749479, 919334987, 994618837,
    1076067617, 1164186217, 1259520799, 1362662261, 1474249943, 1594975441, 1725587117,
    1866894511, 2019773507, 2185171673, 2364114217, 2557710269, 2767159799, 2993761039,
    3238918481, 3504151727, 3791104843, 4101556399, 4294967291, 6442450933, 8589934583,
    12884901857, 17179869143, 25769803693, 34359738337, 51539607367, 68719476731,
    103079215087, 137438953447, 206158430123, 274877906899, 412316860387, 549755813881,
    824633720731, 1099511627689, 1649267441579, 2199023255531, 3298534883309,
    4398046511093, 6597069766607, 8796093022151, 13194139533241, 17592186044399,
    26388279066581, 35184372088777, 52776558133177, 70368744177643, 105553116266399,
    140737488355213, 211106232532861, 281474976710597, 562949953421231, 1125899906842597,
    2251799813685119, 4503599627370449, 9007199254740881, 18014398509481951,
    36028797018963913, 72057594037927931, 144115188075855859, 288230376151711717,
    576460752303423433, 1152921504606846883, 2305843009213693951, 4611686018427387847,
    9223372036854775783, 18446744073709551557,
)  # fmt: skip
_GNU_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def collision_hash(id1: int, id2: int) -> int:
    """CARLA's hash of a collision pair: `(size_t(id1) << 32) + id2` in 64-bit arithmetic."""
    return ((id1 << 32) + id2) & _SIZE_MASK


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    return all(n % d for d in range(3, math.isqrt(n) + 1, 2))


def _llvm_next_prime(n: int) -> int:
    """libc++'s `__next_prime`: the smallest prime not below n."""
    while not _is_prime(n):
        n += 1
    return n


class UnorderedTable:
    """The node list and buckets of one unordered container with unique keys.

    `insert`, `erase` and `clear` follow the library's code step by step (bucket
    growth at max_load_factor 1, the rehash relinking, insertion at the bucket's
    head); iterating gives the keys in the container's iteration order.
    """

    def __init__(self, library: str = LIBCXX) -> None:
        if library not in LIBRARIES:
            raise RecorderError(f"unknown C++ library {library!r}: expected one of {LIBRARIES}")
        self.library = library
        self._next: dict[object, object] = {_HEAD: None}
        self._hash: dict[object, int] = {}
        self._before: dict[int, object] = {}  # bucket -> node before its first node
        self.bucket_count = 0 if library == LIBCXX else 1
        self._next_resize = 0  # libstdc++'s rehash policy state

    def __len__(self) -> int:
        return len(self._hash)

    def __contains__(self, key: object) -> bool:
        return key in self._hash

    def __iter__(self) -> Iterator:
        node = self._next[_HEAD]
        while node is not None:
            yield node
            node = self._next[node]

    def _bucket(self, h: int, count: int | None = None) -> int:
        count = self.bucket_count if count is None else count
        if self.library == LIBCXX and count & (count - 1) == 0:
            return h & (count - 1)
        return h % count

    def insert(self, key: Hashable, h: int) -> bool:
        """Inserts key with hash h unless present; True when it was inserted."""
        if key in self._hash:
            return False
        h &= _SIZE_MASK
        if self.library == LIBCXX:
            self._llvm_grow()
        else:
            self._gnu_grow()
        self._hash[key] = h
        self._link_at_bucket_head(key, self._bucket(h))
        return True

    def _link_at_bucket_head(self, key: object, b: int) -> None:
        prev = self._before.get(b)
        if prev is None:
            first = self._next[_HEAD]
            self._next[key] = first
            self._next[_HEAD] = key
            self._before[b] = _HEAD
            if first is not None:
                self._before[self._bucket(self._hash[first])] = key
        else:
            self._next[key] = self._next[prev]
            self._next[prev] = key

    def _llvm_grow(self) -> None:
        bc = self.bucket_count
        size = len(self._hash)
        if size + 1 > bc * 1.0 or bc == 0:
            power2 = bc > 2 and bc & (bc - 1) == 0
            n = max(2 * bc + (not power2), math.ceil(float(size + 1)))
            if n == 1:
                n = 2
            elif n & (n - 1):
                n = _llvm_next_prime(n)
            if n > bc:
                self._llvm_rehash(n)

    def _llvm_rehash(self, count: int) -> None:
        """libc++'s `__do_rehash` for unique keys."""
        self.bucket_count = count
        self._before = {}
        pp = _HEAD
        cp = self._next[pp]
        if cp is None:
            return
        phash = self._bucket(self._hash[cp])
        self._before[phash] = pp
        pp = cp
        cp = self._next[cp]
        while cp is not None:
            chash = self._bucket(self._hash[cp])
            if chash == phash:
                pp = cp
            elif chash not in self._before:
                self._before[chash] = pp
                pp = cp
                phash = chash
            else:
                head = self._before[chash]
                self._next[pp] = self._next[cp]
                self._next[cp] = self._next[head]
                self._next[head] = cp
            cp = self._next[pp]

    def _gnu_next_bucket(self, n: int) -> int:
        """libstdc++'s `_Prime_rehash_policy::_M_next_bkt` (also sets the next resize)."""
        if n < len(_GNU_FAST_BUCKETS):
            if n == 0:
                return 1
            self._next_resize = _GNU_FAST_BUCKETS[n]
            return _GNU_FAST_BUCKETS[n]
        last = len(_GNU_PRIMES) - 1
        i = bisect.bisect_left(_GNU_PRIMES, n, 6, last)
        self._next_resize = _SIZE_MASK if i == last else _GNU_PRIMES[i]
        return _GNU_PRIMES[i]

    def _gnu_grow(self) -> None:
        """libstdc++'s `_M_need_rehash(bucket_count, size, 1)` and the rehash it asks for."""
        total = len(self._hash) + 1
        if total <= self._next_resize:
            return
        min_buckets = float(max(total, 0 if self._next_resize else 11))
        if min_buckets >= self.bucket_count:
            wanted = max(math.floor(min_buckets) + 1, self.bucket_count * 2)
            self._gnu_rehash(self._gnu_next_bucket(wanted))
        else:
            self._next_resize = self.bucket_count

    def _gnu_rehash(self, count: int) -> None:
        """libstdc++'s `_M_rehash_aux` for unique keys."""
        node = self._next[_HEAD]
        self._next[_HEAD] = None
        self.bucket_count = count
        self._before = {}
        begin_bucket = 0
        while node is not None:
            following = self._next[node]
            b = self._bucket(self._hash[node])
            if b not in self._before:
                self._next[node] = self._next[_HEAD]
                self._next[_HEAD] = node
                self._before[b] = _HEAD
                if self._next[node] is not None:
                    self._before[begin_bucket] = node
                begin_bucket = b
            else:
                head = self._before[b]
                self._next[node] = self._next[head]
                self._next[head] = node
            node = following

    def erase(self, key: object) -> bool:
        """Removes key if present (the bucket fix-ups of both libraries); True if removed."""
        h = self._hash.get(key)
        if h is None:
            return False
        b = self._bucket(h)
        prev = self._before[b]
        while self._next[prev] != key:
            prev = self._next[prev]
        following = self._next[key]
        prev_same = prev is not _HEAD and self._bucket(self._hash[prev]) == b
        next_bucket = None if following is None else self._bucket(self._hash[following])
        if not prev_same and next_bucket != b:
            del self._before[b]
        if next_bucket is not None and next_bucket != b:
            self._before[next_bucket] = prev
        self._next[prev] = following
        del self._next[key]
        del self._hash[key]
        return True

    def copy(self) -> UnorderedTable:
        """An independent table with the same nodes, buckets and rehash state."""
        twin = UnorderedTable(self.library)
        twin._next = dict(self._next)
        twin._hash = dict(self._hash)
        twin._before = dict(self._before)
        twin.bucket_count = self.bucket_count
        twin._next_resize = self._next_resize
        return twin

    def clear(self) -> None:
        """Removes every node; the bucket count (and libstdc++'s resize point) stay."""
        self._next = {_HEAD: None}
        self._hash = {}
        self._before = {}


class CollisionSet:
    """CARLA's per-frame `std::unordered_set` of collision records, kept across frames.

    Equality is (id1, id2): a repeated pair keeps its first record. `clear()` between
    frames keeps the bucket count, as CARLA's recorder does.
    """

    def __init__(self, library: str = LIBCXX) -> None:
        self._table = UnorderedTable(library)
        self._records: dict[tuple[int, int], object] = {}

    def add(self, id1: int, id2: int, record: object) -> bool:
        """Adds a record for the pair; False (record dropped) when the pair is present."""
        key = (id1, id2)
        if not self._table.insert(key, collision_hash(id1, id2)):
            return False
        self._records[key] = record
        return True

    def records(self) -> list:
        """The records in the set's iteration order."""
        return [self._records[key] for key in self._table]

    def copy(self) -> CollisionSet:
        """An independent set with the same records, order and bucket state (the records
        themselves are shared)."""
        twin = CollisionSet.__new__(CollisionSet)
        twin._table = self._table.copy()
        twin._records = dict(self._records)
        return twin

    def clear(self) -> None:
        self._table.clear()
        self._records = {}


def collision_order(pairs: Iterable[tuple[int, int]], library: str = LIBCXX) -> list[int]:
    """Indices of the pairs a fresh set keeps, in its iteration order."""
    collisions = CollisionSet(library)
    for index, (id1, id2) in enumerate(pairs):
        collisions.add(id1, id2, index)
    return collisions.records()
