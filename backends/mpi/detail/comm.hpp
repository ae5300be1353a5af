#pragma once
/// \file
/// \brief The library's private communicators. parprim never sends on the user's communicator:
/// on first use it duplicates it (collective, like every primitive call), sets
/// `MPI_ERRORS_RETURN` on the duplicate (failures become `parprim::mpi_error`, not an abort)
/// and caches the duplicate on the user's communicator as an attribute, so later calls reuse it.
/// The attribute's delete callback frees the duplicate (and its rank-reversed twin, made for
/// the per-segment reductions) when the user frees the communicator;
/// communicators still alive at `MPI_Finalize` (e.g. `MPI_COMM_WORLD`) are released there.

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include <parprim/backends/mpi/detail/error.hpp>
#include <parprim/backends/mpi/detail/finalize.hpp>
#include <parprim/error.hpp>

namespace parprim::mpi_detail {

/// \brief What a primitive needs of its communicator.
struct context {
  MPI_Comm comm;  ///< the library's duplicate (MPI_ERRORS_RETURN)
  int rank;
  int size;
  int node_rank;  ///< the rank among this communicator's ranks on the same node (shared memory)
};

/// \brief The duplicates, one per user communicator.
class comm_cache {
 public:
  static comm_cache& instance() {
    static comm_cache c;
    return c;
  }

  /// \brief The duplicate of `user`, created on first use (collective over `user`).
  /// \throws parprim::invalid_argument for an inter-communicator.
  context get(MPI_Comm user) {
    const int kv = keyval();
    void* attr = nullptr;
    int found = 0;
    PARPRIM_MPI_CHECK(MPI_Comm_get_attr(user, kv, &attr, &found));
    entry* e = found ? static_cast<entry*>(attr) : create(user, kv);
    if (e->inter)
      throw invalid_argument(
          "parprim::mpi: inter-communicators are not supported (scans need MPI_Exscan); pass "
          "an intra-communicator, e.g. from MPI_Intercomm_merge");
    return {e->dup, e->rank, e->size, e->node_rank};
  }

  /// \brief The duplicate with its ranks in reverse order (rank r of `user` is rank
  /// size - 1 - r of it), for scans from the right (`MPI_Exscan` on it folds the ranks above);
  /// created on first use (collective over `user`) and freed with the duplicate.
  context reversed(MPI_Comm user) {
    const context ctx = get(user);
    void* attr = nullptr;
    int found = 0;
    PARPRIM_MPI_CHECK(MPI_Comm_get_attr(user, keyval(), &attr, &found));
    entry* e = static_cast<entry*>(attr);
    if (e->reversed == MPI_COMM_NULL) {
      PARPRIM_MPI_CHECK(MPI_Comm_split(e->dup, 0, e->size - 1 - e->rank, &e->reversed));
      const int rc = MPI_Comm_set_errhandler(e->reversed, MPI_ERRORS_RETURN);
      if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&e->reversed);
        PARPRIM_MPI_CHECK(rc);
      }
    }
    return {e->reversed, ctx.size - 1 - ctx.rank, ctx.size, ctx.node_rank};
  }

 private:
  struct entry {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm reversed = MPI_COMM_NULL;  // made by reversed(), on first use
    int rank = 0;
    int size = 1;
    int node_rank = 0;
    bool inter = false;
  };

  comm_cache() = default;

  int keyval() {
    std::call_once(once_, [this] {
      int kv = MPI_KEYVAL_INVALID;
      PARPRIM_MPI_CHECK(
          MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &comm_cache::on_delete, &kv, nullptr));
      keyval_ = kv;
      finalizer::instance().at_finalize([this] { release_all(); });
    });
    return keyval_;
  }

  entry* create(MPI_Comm user, int kv) {
    auto e = std::make_unique<entry>();
    int inter = 0;
    PARPRIM_MPI_CHECK(MPI_Comm_test_inter(user, &inter));
    e->inter = inter != 0;
    if (!e->inter) {
      PARPRIM_MPI_CHECK(MPI_Comm_dup(user, &e->dup));
      const int rc = MPI_Comm_set_errhandler(e->dup, MPI_ERRORS_RETURN);
      if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&e->dup);
        PARPRIM_MPI_CHECK(rc);
      }
      PARPRIM_MPI_CHECK(MPI_Comm_rank(e->dup, &e->rank));
      PARPRIM_MPI_CHECK(MPI_Comm_size(e->dup, &e->size));
      e->node_rank = node_rank_of(e->dup, e->rank);
    }
    const int rc = MPI_Comm_set_attr(user, kv, e.get());
    if (rc != MPI_SUCCESS) {
      if (e->dup != MPI_COMM_NULL) MPI_Comm_free(&e->dup);
      PARPRIM_MPI_CHECK(rc);
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      users_.push_back(user);
    }
    return e.release();
  }

  // The rank among the ranks of `dup` that share this node's memory (what picks a GPU per rank,
  // see detail/local_cuda.hpp). Collective over `dup`, done once with the duplicate.
  static int node_rank_of(MPI_Comm dup, int rank) {
    MPI_Comm node = MPI_COMM_NULL;
    PARPRIM_MPI_CHECK(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int r = 0;
    const int rc = MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    PARPRIM_MPI_CHECK(rc);
    return r;
  }

  // Delete callback: the user freed the communicator (or we release it at finalize).
  static int on_delete(MPI_Comm user, int, void* attr, void*) {
    auto* e = static_cast<entry*>(attr);
    if (e->reversed != MPI_COMM_NULL) MPI_Comm_free(&e->reversed);
    if (e->dup != MPI_COMM_NULL) MPI_Comm_free(&e->dup);
    delete e;
    comm_cache& self = instance();
    const std::lock_guard<std::mutex> lock(self.mutex_);
    self.users_.erase(std::remove(self.users_.begin(), self.users_.end(), user), self.users_.end());
    return MPI_SUCCESS;
  }

  // At MPI_Finalize: drop the attribute (and so the duplicate) from every communicator that
  // still has one. MPI_COMM_SELF is being freed right now; its attributes go with it.
  void release_all() {
    std::vector<MPI_Comm> users;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      users = users_;
    }
    for (MPI_Comm c : users)
      if (c != MPI_COMM_SELF) MPI_Comm_delete_attr(c, keyval_);
    MPI_Comm_free_keyval(&keyval_);
  }

  std::once_flag once_;
  int keyval_ = MPI_KEYVAL_INVALID;
  std::mutex mutex_;
  std::vector<MPI_Comm> users_;
};

/// \brief The library's view of `user` (duplicating it on first use).
inline context make_context(MPI_Comm user) {
  return comm_cache::instance().get(user);
}

/// \brief The library's view of `user` with the ranks in reverse order (see
/// comm_cache::reversed); collective on first use.
inline context make_reversed_context(MPI_Comm user) {
  return comm_cache::instance().reversed(user);
}

}  // namespace parprim::mpi_detail
