/// \file
/// \brief parprim-bench-mpi: the MPI backend against raw MPI, under mpirun.
///
/// Every rank runs the same benchmarks with the same fixed iteration counts; each iteration is
/// timed between a barrier and the end of the call on each rank, and the reported time is the
/// maximum over the ranks (MPI_Allreduce), as manual time. Rank 0 reports; the other ranks
/// print nothing and never write --benchmark_out.
///
/// Names: mpi/<primitive>/<competitor>/<type>/<strong|weak>/ranks:<p>/n:<global n>, and
/// mpi/latency/{allreduce,exscan,exscan_flag_pair}/int32/ranks:<p>/n:1 (one collective of one
/// scalar, the cost model's log p term: 2000 calls, in microseconds).
/// - strong scaling: n = 2^28 in total (PARPRIM_BENCH_MPI_STRONG_LOG2), split evenly;
/// - weak scaling: 2^24 per rank (PARPRIM_BENCH_MPI_WEAK_LOG2).
/// Competitors (each rank's local part runs on parprim::seq: one rank per core):
/// - parprim: parprim::mpi(comm).local(parprim::seq) with a built-in operator (predefined
///   datatype and MPI operation);
/// - parprim_user_op: the same sum as a user functor (user MPI_Op, carried as {value, has});
/// - parprim_derived: the same sum on a one-field struct described with PARPRIM_MPI_STRUCT;
/// - parprim_exact (float64): the same sum with parprim::exact_plus (superaccumulators
///   combined across ranks: the same bits for any rank count);
/// - raw_*: hand-written MPI: the local loop plus one MPI_Allreduce / MPI_Exscan of a scalar,
///   with MPI_SUM (raw), a user MPI_Op (raw_user_op) or a derived datatype (raw_derived);
///   for scans raw_reduce_then_scan is local fold + MPI_Exscan + local scan from the carry
///   (parprim's algorithm written by hand with the same parprim::seq functions: the "local
///   work + one collective of a scalar" of a correct scan), raw_bound is local scan +
///   MPI_Exscan without applying the carry (a lower bound, not a correct distributed scan) and
///   raw_textbook the local scan, MPI_Exscan and fix-up pass of the lecture notes.
/// Per-segment rows (mpi/segmented_reduce, mpi/reduce_by_key, mpi/inclusive_scan_by_key):
/// parprim against raw_bound, the same call on parprim::seq plus one MPI_Exscan of a
/// {value, flag} pair (local work and one collective of O(1) values).
/// Rounds (PARPRIM_BENCH_MPI_ROUNDS, default 1): the whole list runs that many times, round by
/// round (odd rounds backwards), each benchmark under the same name in every round; bench/report
/// takes the median.

#include "mpi_bench.hpp"
#include "raw_reduce_then_scan.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <parprim/parprim.hpp>

namespace bench {

struct boxed {
  std::int32_t v;
  friend boxed operator+(boxed a, boxed b) { return {a.v + b.v}; }
};

/// The built-in sum as a user functor: parprim cannot map it to MPI_SUM.
struct user_plus {
  static constexpr bool is_commutative = true;
  template <class T>
  T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

}  // namespace bench

PARPRIM_MPI_STRUCT(bench::boxed, v);

namespace bench {
namespace {

// --- raw MPI helpers --------------------------------------------------------------------------

void raw_sum_int(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}
/// The MPI_Op of `F` (commutative or not), created on first use.
template <MPI_User_function* F, int Commute>
MPI_Op raw_op() {
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(F, Commute, &o);
    return o;
  }();
  return op;
}
MPI_Op raw_user_sum() {
  return raw_op<&raw_sum_int, 1>();
}
MPI_Datatype raw_boxed_type() {
  static MPI_Datatype t = [] {
    int len = 1;
    MPI_Aint disp = 0;
    MPI_Datatype type = MPI_INT32_T;
    MPI_Datatype s;
    MPI_Datatype r;
    MPI_Type_create_struct(1, &len, &disp, &type, &s);
    MPI_Type_create_resized(s, 0, sizeof(boxed), &r);
    MPI_Type_free(&s);
    MPI_Type_commit(&r);
    return r;
  }();
  return t;
}

struct flagged_int {
  std::int32_t value;
  std::int32_t head;
};
void raw_flag_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const flagged_int*>(in);
  auto* b = static_cast<flagged_int*>(inout);
  for (int i = 0; i < *len; ++i)
    if (!b[i].head) b[i] = {a[i].value + b[i].value, a[i].head};
}
MPI_Op raw_segmented_op() {
  return raw_op<&raw_flag_op, 0>();
}
/// flagged_int as two int32.
MPI_Datatype raw_flag_pair_type() {
  static MPI_Datatype t = [] {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT32_T, &pair);
    MPI_Type_commit(&pair);
    return pair;
  }();
  return t;
}

// --- timing and registration --------------------------------------------------------------------

/// Times `body()` as described in the file comment.
template <class Body>
void timed(benchmark::State& state, std::size_t global_n, std::size_t elem_bytes, Body body) {
  timed_on_all_ranks(state, global_n, elem_bytes, body);
}

/// As timed, after one untimed call: the per-segment rows, where the first timed call of a
/// process ran up to 1.5x slower than the next ones whichever row made it (2-core development
/// machine, 1 rank, 2^24 elements).
template <class Body>
void timed_after_one(benchmark::State& state, std::size_t global_n, std::size_t elem_bytes,
                     Body body) {
  timed_on_all_ranks(state, global_n, elem_bytes, body, 1);
}

struct scaling {
  const char* name;
  std::size_t global_n;
  std::size_t local_n;
};

/// The value `make()` returns for `key`, made on the first call and kept: the benchmarks' inputs,
/// shared by the benchmarks and rounds that read them (filling 2^28 elements costs more than
/// timing a call on them). One cache per call site (each `make` is its own lambda type).
template <class Key, class Make>
const auto& made_once(const Key& key, Make make) {
  static std::map<Key, decltype(make())> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make()).first;
  return it->second;
}

/// A writable block of n elements, one per (n, salt), kept: the rows of one call write the same
/// pages (mapped once, outside the timing), so parprim's row and its bound differ in code only.
template <class T>
std::vector<T>& output_block(std::size_t n, int salt) {
  static std::map<std::pair<std::size_t, int>, std::vector<T>> cache;
  std::vector<T>& v = cache[{n, salt}];
  if (v.size() != n) v.assign(n, T{});
  return v;
}

/// A rank's input block of n elements: small integers in [-3, 3], different on every rank and
/// for every salt.
template <class T>
const std::vector<T>& block(std::size_t n, int salt) {
  return made_once(std::pair{n, salt}, [&] {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = static_cast<T>(static_cast<int>((i * 2654435761u + static_cast<std::size_t>(g_rank) +
                                              static_cast<std::size_t>(salt)) %
                                             7) -
                            3);
    return v;
  });
}

/// The int32 block of salt 1 as one-field structs (the derived-datatype benchmarks).
const std::vector<boxed>& boxed_block(std::size_t n) {
  return made_once(n, [&] {
    std::vector<boxed> v;
    v.reserve(n);
    for (const std::int32_t x : block<std::int32_t>(n, 1)) v.push_back({x});
    return v;
  });
}

/// One head flag every 1024 elements.
const std::vector<std::uint8_t>& heads_1in1024(std::size_t n) {
  return made_once(n, [&] {
    std::vector<std::uint8_t> f(n, 0);
    for (std::size_t i = 0; i < n; i += 1024) f[i] = 1;
    return f;
  });
}

/// The benchmarks in the order they were added; registered by register_rounds().
struct pending_benchmark {
  std::string name;
  std::function<void(benchmark::State&)> fn;
  benchmark::IterationCount iterations;
};
std::vector<pending_benchmark> g_pending;

void add(const std::string& name, const scaling& s, std::function<void(benchmark::State&)> fn) {
  const std::string full =
      name + "/" + s.name + "/ranks:" + std::to_string(g_size) + "/n:" + std::to_string(s.global_n);
  const auto iters = static_cast<benchmark::IterationCount>(
      std::clamp<std::size_t>((std::size_t{1} << 28) / std::max<std::size_t>(s.local_n, 1), 3, 50));
  g_pending.push_back({full, std::move(fn), iters});
}

/// Registers every added benchmark `rounds` times, round by round (A B C ... C B A ...), under
/// the same name: each round is one sample and the report takes the median over the rounds.
/// Competitors doing the same work then meet the host's slow phases alike, where repetitions
/// (A A A B B B) put each competitor in a different stretch of time; odd rounds run the list
/// backwards, so neither of two neighbours always runs first. Every rank registers the same
/// list in the same order, so the collectives inside the benchmarks match.
void register_rounds(int rounds) {
  const auto reg = [](const pending_benchmark& b) {
    benchmark::RegisterBenchmark(b.name.c_str(), b.fn)
        ->UseManualTime()
        ->Iterations(b.iterations)
        ->Unit(benchmark::kMillisecond);
  };
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0)
      std::for_each(g_pending.begin(), g_pending.end(), reg);
    else
      std::for_each(g_pending.rbegin(), g_pending.rend(), reg);
  }
}

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "int32" : "float64";
}

template <class T>
void register_reduce(const scaling& s) {
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  const std::string base = std::string("mpi/reduce/");
  const std::string t = type_name<T>();
  add(base + "parprim/" + t, s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 1);
    timed(st, s.global_n, sizeof(T),
          [&] { parprim_bench::keep(parprim::reduce(policy, in, T{}, parprim::plus{})); });
  });
  if constexpr (std::is_floating_point_v<T>) {  // the same sum correctly rounded, same bits
    add(base + "parprim_exact/" + t, s, [=](benchmark::State& st) {
      const auto& in = block<T>(s.local_n, 1);
      timed(st, s.global_n, sizeof(T),
            [&] { parprim_bench::keep(parprim::reduce(policy, in, T{}, parprim::exact_plus{})); });
    });
  }
  add(base + "raw/" + t, s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 1);
    const MPI_Datatype dt = parprim::mpi_datatype<T>();
    timed(st, s.global_n, sizeof(T), [&] {
      T local = parprim::reduce(parprim::seq, in, T{}, parprim::plus{});
      T global{};
      MPI_Allreduce(&local, &global, 1, dt, MPI_SUM, MPI_COMM_WORLD);
      parprim_bench::keep(global);
    });
  });
  if constexpr (sizeof(T) == 4) {
    add(base + "parprim_user_op/" + t, s, [=](benchmark::State& st) {
      const auto& in = block<T>(s.local_n, 1);
      timed(st, s.global_n, sizeof(T),
            [&] { parprim_bench::keep(parprim::reduce(policy, in, T{}, user_plus{})); });
    });
    add(base + "parprim_derived/" + t, s, [=](benchmark::State& st) {
      const auto& in = boxed_block(s.local_n);
      timed(st, s.global_n, sizeof(T),
            [&] { parprim_bench::keep(parprim::reduce(policy, in, boxed{0}, parprim::plus{})); });
    });
    add(base + "raw_user_op/" + t, s, [=](benchmark::State& st) {
      const auto& in = block<T>(s.local_n, 1);
      timed(st, s.global_n, sizeof(T), [&] {
        T local = parprim::reduce(parprim::seq, in, T{}, parprim::plus{});
        T global{};
        MPI_Allreduce(&local, &global, 1, MPI_INT32_T, raw_user_sum(), MPI_COMM_WORLD);
        parprim_bench::keep(global);
      });
    });
    add(base + "raw_derived/" + t, s, [=](benchmark::State& st) {
      const auto& in = block<T>(s.local_n, 1);
      timed(st, s.global_n, sizeof(T), [&] {
        boxed local{parprim::reduce(parprim::seq, in, T{}, parprim::plus{})};
        boxed global{};
        MPI_Allreduce(&local, &global, 1, raw_boxed_type(), raw_user_sum(), MPI_COMM_WORLD);
        parprim_bench::keep(global);
      });
    });
  }
}

/// A scan row mpi/scan/<name>/int32: `body(in, out)` timed on this rank's int32 block of salt
/// 2 and an output of its size.
template <class Body>
void add_scan(const std::string& name, const scaling& s, Body body) {
  add("mpi/scan/" + name + "/int32", s, [=](benchmark::State& st) {
    const auto& in = block<std::int32_t>(s.local_n, 2);
    std::vector<std::int32_t> out(in.size());
    timed(st, s.global_n, sizeof(std::int32_t), [&] { body(in, out); });
    parprim_bench::keep(out.data());
  });
}

/// The local scan and MPI_Exscan of the block totals: returns the rank's carry, not applied.
std::int32_t raw_local_scan_and_carry(const std::vector<std::int32_t>& in,
                                      std::vector<std::int32_t>& out) {
  parprim::inclusive_scan(parprim::seq, in, out);
  std::int32_t total = out.empty() ? 0 : out.back();
  std::int32_t carry = 0;
  MPI_Exscan(&total, &carry, 1, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  return carry;
}

void register_scan(const scaling& s) {
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  add_scan("parprim", s,
           [=](const auto& in, auto& out) { parprim::inclusive_scan(policy, in, out); });
  add_scan("parprim_user_op", s, [=](const auto& in, auto& out) {
    parprim::inclusive_scan(policy, in, out, user_plus{});
  });
  add_scan("raw_bound", s, [](const auto& in, auto& out) {
    parprim_bench::keep(raw_local_scan_and_carry(in, out));
  });
  add_scan("raw_reduce_then_scan", s, [](const auto& in, auto& out) {
    parprim_bench::raw_reduce_then_scan(in, out, MPI_COMM_WORLD);
  });
  add_scan("raw_textbook", s, [](const auto& in, auto& out) {
    const std::int32_t carry = raw_local_scan_and_carry(in, out);
    if (g_rank > 0)
      for (auto& x : out) x += carry;
  });
}

/// One MPI_Exscan of a {value, flag} pair with the flag operator: the carry of the segment open
/// at this rank's left edge (the raw segmented scan's, and the "one collective of O(1) values"
/// beside the local per-segment work of the raw_bound rows).
flagged_int raw_pair_exscan(std::int32_t value, bool flag) {
  flagged_int mine{value, flag ? 1 : 0};
  flagged_int carry{0, 0};
  MPI_Exscan(&mine, &carry, 1, raw_flag_pair_type(), raw_segmented_op(), MPI_COMM_WORLD);
  return carry;
}

void register_segmented(const scaling& s) {
  using T = std::int32_t;
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  add("mpi/segmented_scan/parprim/int32/heads:1in1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 3);
    const auto& heads = heads_1in1024(in.size());
    std::vector<T> out(in.size());
    timed(st, s.global_n, sizeof(T) + 1,
          [&] { parprim::segmented_inclusive_scan(policy, in, heads, out); });
    parprim_bench::keep(out.data());
  });
  add("mpi/segmented_scan/raw_textbook/int32/heads:1in1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 3);
    const auto& heads = heads_1in1024(in.size());
    std::vector<T> out(in.size());
    timed(st, s.global_n, sizeof(T) + 1, [&] {
      parprim::segmented_inclusive_scan(parprim::seq, in, heads, out);
      const bool any_head = std::find(heads.begin(), heads.end(), 1) != heads.end();
      const flagged_int carry = raw_pair_exscan(out.empty() ? 0 : out.back(), any_head);
      if (g_rank > 0)
        for (std::size_t i = 0; i < out.size() && !heads[i]; ++i) out[i] += carry.value;
    });
    parprim_bench::keep(out.data());
  });
}

/// Keys of runs of 1024 in the global sequence: element i of this rank's block (of n, the ranks'
/// blocks of equal size) has key (rank * n + i) / 1024.
const std::vector<std::int32_t>& keys_runs_of_1024(std::size_t n) {
  return made_once(n, [&] {
    std::vector<std::int32_t> k(n);
    const std::size_t first = static_cast<std::size_t>(g_rank) * n;
    for (std::size_t i = 0; i < n; ++i) k[i] = static_cast<std::int32_t>((first + i) / 1024);
    return k;
  });
}

/// The per-segment calls (segmented_reduce with head flags one in 1024, reduce_by_key and
/// inclusive_scan_by_key with runs of 1024), parprim's against raw_bound: the same call on
/// parprim::seq over the rank's block plus one MPI_Exscan of a {value, flag} pair, the local
/// work and one collective of O(1) values (a lower bound: it does not join the segments that
/// span ranks).
void register_per_segment(const scaling& s) {
  using T = std::int32_t;
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  const std::size_t results = s.local_n / 1024 + 1;  // the segments that start on a rank
  add("mpi/segmented_reduce/parprim/int32/heads:1in1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 4);
    const auto& heads = heads_1in1024(in.size());
    std::vector<T>& out = output_block<T>(results, 1);
    timed_after_one(st, s.global_n, sizeof(T) + 1, [&] {
      parprim_bench::keep(parprim::segmented_reduce(policy, in, heads, out, T{}, parprim::plus{}));
    });
    parprim_bench::keep(out.data());
  });
  add("mpi/segmented_reduce/raw_bound/int32/heads:1in1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 4);
    const auto& heads = heads_1in1024(in.size());
    std::vector<T>& out = output_block<T>(results, 1);
    timed_after_one(st, s.global_n, sizeof(T) + 1, [&] {
      const std::size_t k =
          parprim::segmented_reduce(parprim::seq, in, heads, out, T{}, parprim::plus{});
      parprim_bench::keep(raw_pair_exscan(k > 0 ? out[k - 1] : 0, k > 0).value);
    });
    parprim_bench::keep(out.data());
  });
  add("mpi/reduce_by_key/parprim/int32/runs:1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 4);
    const auto& keys = keys_runs_of_1024(in.size());
    std::vector<T>& keys_out = output_block<T>(results, 2);
    std::vector<T>& out = output_block<T>(results, 1);
    timed_after_one(st, s.global_n, 2 * sizeof(T), [&] {
      parprim_bench::keep(parprim::reduce_by_key(policy, keys, in, keys_out, out));
    });
    parprim_bench::keep(out.data());
  });
  add("mpi/reduce_by_key/raw_bound/int32/runs:1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 4);
    const auto& keys = keys_runs_of_1024(in.size());
    std::vector<T>& keys_out = output_block<T>(results, 2);
    std::vector<T>& out = output_block<T>(results, 1);
    timed_after_one(st, s.global_n, 2 * sizeof(T), [&] {
      const std::size_t k = parprim::reduce_by_key(parprim::seq, keys, in, keys_out, out);
      parprim_bench::keep(raw_pair_exscan(k > 0 ? out[k - 1] : 0, k > 0).value);
    });
    parprim_bench::keep(out.data());
  });
  add("mpi/inclusive_scan_by_key/parprim/int32/runs:1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 4);
    const auto& keys = keys_runs_of_1024(in.size());
    std::vector<T>& out = output_block<T>(in.size(), 0);
    timed_after_one(st, s.global_n, 2 * sizeof(T),
                    [&] { parprim::inclusive_scan_by_key(policy, keys, in, out); });
    parprim_bench::keep(out.data());
  });
  add("mpi/inclusive_scan_by_key/raw_bound/int32/runs:1024", s, [=](benchmark::State& st) {
    const auto& in = block<T>(s.local_n, 4);
    const auto& keys = keys_runs_of_1024(in.size());
    std::vector<T>& out = output_block<T>(in.size(), 0);
    timed_after_one(st, s.global_n, 2 * sizeof(T), [&] {
      parprim::inclusive_scan_by_key(parprim::seq, keys, in, out);
      parprim_bench::keep(raw_pair_exscan(out.empty() ? 0 : out.back(), !keys.empty()).value);
    });
    parprim_bench::keep(out.data());
  });
}

/// The collective latency the cost model's log p term stands for: one collective of one
/// scalar (and of the {value, flag} pair with the user op that segmented scan uses).
void register_latency() {
  register_scalar_latencies(2000, [](benchmark::State& st, std::size_t n, std::size_t bytes,
                                     auto body) { timed(st, n, bytes, body); });
  register_latency_row("exscan_flag_pair", 2000, [](benchmark::State& st) {
    const MPI_Datatype pair = raw_flag_pair_type();
    flagged_int v{g_rank, g_rank % 3 == 0};
    flagged_int r{0, 0};
    timed(st, 1, sizeof(v),
          [&] { MPI_Exscan(&v, &r, 1, pair, raw_segmented_op(), MPI_COMM_WORLD); });
    parprim_bench::keep(r.value);
  });
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  bench::start(argc, argv);
  const int strong_log2 = bench::env_int("PARPRIM_BENCH_MPI_STRONG_LOG2", 28);
  const int weak_log2 = bench::env_int("PARPRIM_BENCH_MPI_WEAK_LOG2", 24);
  const std::size_t strong_n = std::size_t{1} << strong_log2;
  const std::size_t weak_local = std::size_t{1} << weak_log2;
  const auto p = static_cast<std::size_t>(bench::g_size);
  const bench::scaling scalings[] = {
      {"strong", strong_n / p * p, strong_n / p},
      {"weak", weak_local * p, weak_local},
  };
  for (const auto& s : scalings) {
    bench::register_reduce<std::int32_t>(s);
    bench::register_reduce<double>(s);
    bench::register_scan(s);
    bench::register_segmented(s);
    bench::register_per_segment(s);
  }
  bench::register_rounds(std::max(1, bench::env_int("PARPRIM_BENCH_MPI_ROUNDS", 1)));
  bench::register_latency();

  benchmark::AddCustomContext("mpi_ranks", std::to_string(bench::g_size));
  benchmark::AddCustomContext("parprim_local_policy", "seq");
  return bench::run_and_finish();
}
