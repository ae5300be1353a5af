/// \file
/// \brief The temporary-storage cache of the CUDA backend (see detail/temp_storage.hpp).

#include <parprim/backends/cuda/detail/temp_storage.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <parprim/backends/cuda/detail/error.hpp>
#include <parprim/error.hpp>

namespace parprim::detail::cuda {

struct temp_storage_entry {
  explicit temp_storage_entry(int dev) : device(dev) {}
  temp_storage_entry(const temp_storage_entry&) = delete;
  temp_storage_entry& operator=(const temp_storage_entry&) = delete;
  /// Runs at exit: errors are ignored (the runtime may be shutting down), nothing throws.
  ~temp_storage_entry() {
    if (cudaSetDevice(device) != cudaSuccess) return;
    if (scratch) (void)cudaFree(scratch);
    if (ticket) (void)cudaFree(ticket);
    if (host) (void)cudaFreeHost(host);
    if (status) (void)cudaFree(status);
  }

  std::mutex mutex;
  int device;
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  unsigned* ticket = nullptr;
  bool ticket_clean = false;
  void* host = nullptr;
  void* host_device = nullptr;  // the device's address of `host` (mapped pinned memory)
  std::size_t host_bytes = 0;
  unsigned* status = nullptr;
  std::size_t status_words = 0;
  unsigned epoch = 0;          // the last epoch handed out; the status words hold epochs <= it
  unsigned status_layout = 0;  // the layout of the last call that used the status words
};

namespace {

struct registry {
  std::mutex mutex;
  std::map<std::pair<int, CUstream_st*>, std::unique_ptr<temp_storage_entry>> entries;
};

registry& the_registry() {
  static registry r;
  return r;
}

temp_storage_entry& entry_for(int device, CUstream_st* stream) {
  registry& r = the_registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  auto& e = r.entries[{device, stream}];
  if (!e) e = std::make_unique<temp_storage_entry>(device);
  return *e;
}

std::size_t grown(std::size_t have, std::size_t want) {
  const std::size_t doubled = have * 2;
  const std::size_t at_least = want < 4096 ? 4096 : want;
  return doubled > at_least ? doubled : at_least;
}

}  // namespace

temp_storage_lease::temp_storage_lease(int device, CUstream_st* stream, std::size_t device_bytes,
                                       std::size_t host_bytes)
    : temp_storage_lease(device, stream, device_bytes, host_bytes, 0, 0) {}

temp_storage_lease::temp_storage_lease(int device, CUstream_st* stream, std::size_t device_bytes,
                                       std::size_t host_bytes, std::size_t status_words,
                                       unsigned status_layout)
    : entry_(&entry_for(device, stream)), lock_(entry_->mutex) {
  temp_storage_entry& e = *entry_;
  if (device_bytes > e.scratch_bytes) {
    if (e.scratch) {
      // Work enqueued earlier on this stream (parprim::reduce synchronises before unlocking,
      // nosync calls may not) may still read the old block: cudaFree synchronises the
      // device before freeing, so that work completes first.
      PARPRIM_CUDA_CHECK(cudaFree(e.scratch));
      e.scratch = nullptr;
      e.scratch_bytes = 0;
    }
    const std::size_t bytes = grown(e.scratch_bytes, device_bytes);
    PARPRIM_CUDA_CHECK(cudaMalloc(&e.scratch, bytes));
    e.scratch_bytes = bytes;
  }
  if (host_bytes > e.host_bytes) {
    if (e.host) {
      PARPRIM_CUDA_CHECK(cudaFreeHost(e.host));
      e.host = nullptr;
      e.host_device = nullptr;
      e.host_bytes = 0;
    }
    const std::size_t bytes = host_bytes < 256 ? 256 : host_bytes;
    PARPRIM_CUDA_CHECK(cudaHostAlloc(&e.host, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    PARPRIM_CUDA_CHECK(cudaHostGetDevicePointer(&e.host_device, e.host, 0));
    e.host_bytes = bytes;
  }
  if (!e.ticket) {
    PARPRIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&e.ticket), 256));
    e.ticket_clean = false;
  }
  // the ticket and the count of finished blocks beside it (call_scratch::done_counter)
  if (!e.ticket_clean)
    PARPRIM_CUDA_CHECK(cudaMemsetAsync(e.ticket, 0, 2 * sizeof(unsigned), stream));
  if (status_words > 0) {
    if (status_words > e.status_words) {
      if (e.status) {
        PARPRIM_CUDA_CHECK(cudaFree(e.status));  // waits for work that may still use it
        e.status = nullptr;
        e.status_words = 0;
      }
      const std::size_t words = grown(e.status_words, status_words);
      PARPRIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&e.status), words * sizeof(unsigned)));
      PARPRIM_CUDA_CHECK(cudaMemsetAsync(e.status, 0, words * sizeof(unsigned), stream));
      e.status_words = words;
      e.epoch = 0;
    }
    // epochs stay below 2^30 (kernels shift them by 2); a new layout must not read the data
    // bytes of the old one as status words
    if (e.epoch == (1u << 30) - 1 || status_layout != e.status_layout) {
      PARPRIM_CUDA_CHECK(cudaMemsetAsync(e.status, 0, e.status_words * sizeof(unsigned), stream));
      if (e.epoch == (1u << 30) - 1) e.epoch = 0;
      e.status_layout = status_layout;
    }
    epoch_ = ++e.epoch;
  }
  // Until this call finishes cleanly the ticket's state is unknown.
  e.ticket_clean = false;
}

temp_storage_lease::~temp_storage_lease() {
  entry_->ticket_clean = clean_;
}

void* temp_storage_lease::device_scratch() const noexcept {
  return entry_->scratch;
}
unsigned* temp_storage_lease::ticket() const noexcept {
  return entry_->ticket;
}
void* temp_storage_lease::host_slot() const noexcept {
  return entry_->host;
}
void* temp_storage_lease::host_slot_device() const noexcept {
  return entry_->host_device;
}
unsigned* temp_storage_lease::status() const noexcept {
  return entry_->status;
}

namespace {
constexpr std::size_t round256(std::size_t bytes) {
  return (bytes + 255) / 256 * 256;
}
}  // namespace

call_scratch::call_scratch(int device, CUstream_st* stream, cuda_memory_resource* memory,
                           std::size_t device_bytes, std::size_t status_words,
                           unsigned status_layout, bool host_result)
    : memory_(memory), stream_(stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (memory_ == nullptr) {
    // the result slot and the completion signal's word after it
    lease_.emplace(device, stream, device_bytes, host_result ? result_slot_bytes + 64 : 0,
                   status_words, status_layout);
    scratch_ = lease_->device_scratch();
    ticket_ = lease_->ticket();
    status_ = lease_->status();
    epoch_ = status_words > 0 ? lease_->epoch() : 1;
    host_ = host_result ? lease_->host_slot() : nullptr;
    result_ = host_result ? lease_->host_slot_device() : nullptr;
    if (status_words > 0) {
      // Captured into a graph, the call's epoch is fixed for every replay, and the replays
      // leave it in the status words: zero them in front of the kernels, in the graph too.
      cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
      PARPRIM_CUDA_CHECK(cudaStreamIsCapturing(s, &capture));
      if (capture != cudaStreamCaptureStatusNone)
        PARPRIM_CUDA_CHECK(cudaMemsetAsync(status_, 0, status_words * sizeof(unsigned), s));
    }
    return;
  }
  // One block: [ticket | status words | scratch | result slot], the first two zeroed (the
  // kernels that take tickets leave the ticket zero again, so a graph replay finds it zero).
  const std::size_t status_bytes = round256(status_words * sizeof(unsigned));
  const std::size_t head = 256 + status_bytes;
  block_bytes_ = head + round256(device_bytes) + 256;
  block_ = memory_->allocate(block_bytes_, stream);
  if (block_ == nullptr)
    throw cuda_error(cudaErrorMemoryAllocation,
                     "parprim: the CUDA memory resource returned null for " +
                         std::to_string(block_bytes_) + " bytes");
  auto* bytes = static_cast<unsigned char*>(block_);
  ticket_ = reinterpret_cast<unsigned*>(bytes);
  status_ = status_words > 0 ? reinterpret_cast<unsigned*>(bytes + 256) : nullptr;
  scratch_ = bytes + head;
  result_ = bytes + head + round256(device_bytes);
  const cudaError_t err = cudaMemsetAsync(block_, 0, head, s);
  if (err != cudaSuccess) {
    memory_->deallocate(block_, block_bytes_, stream_);
    block_ = nullptr;
    PARPRIM_CUDA_CHECK(err);
  }
}

call_scratch::~call_scratch() {
  if (block_ != nullptr) memory_->deallocate(block_, block_bytes_, stream_);
}

void call_scratch::finished_cleanly() noexcept {
  if (lease_) lease_->finished_cleanly();
}

namespace {
/// The library's stream-ordered pools, one per device, made on first use: allocations stay
/// reserved between calls (release threshold: all), until release_cache trims them.
struct pool_registry {
  std::mutex mutex;
  std::map<int, cudaMemPool_t> pools;
};
pool_registry& the_pools() {
  static pool_registry* r = new pool_registry;  // never destroyed: used until exit
  return *r;
}
cudaMemPool_t library_pool(int device) {
  pool_registry& r = the_pools();
  const std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.pools.find(device);
  if (it != r.pools.end()) return it->second;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  PARPRIM_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep_all = UINT64_MAX;
  PARPRIM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  r.pools.emplace(device, pool);
  return pool;
}
}  // namespace

temp_block::temp_block(int device, CUstream_st* stream, cuda_memory_resource* memory,
                       std::size_t bytes)
    : memory_(memory), stream_(stream), bytes_(bytes < 256 ? 256 : bytes) {
  if (memory_ != nullptr) {
    p_ = memory_->allocate(bytes_, stream_);
  } else {
    if (device < 0) PARPRIM_CUDA_CHECK(cudaGetDevice(&device));
    PARPRIM_CUDA_CHECK(cudaMallocFromPoolAsync(&p_, bytes_, library_pool(device),
                                               static_cast<cudaStream_t>(stream_)));
  }
}

temp_block::~temp_block() {
  if (p_ == nullptr) return;
  if (memory_ != nullptr)
    memory_->deallocate(p_, bytes_, stream_);
  else
    (void)cudaFreeAsync(p_, static_cast<cudaStream_t>(stream_));
}

void release_cache() {
  registry& r = the_registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  int current = 0;
  PARPRIM_CUDA_CHECK(cudaGetDevice(&current));
  cudaError_t first = cudaSuccess;
  for (auto& [key, entry] : r.entries) {
    const std::lock_guard<std::mutex> entry_lock(entry->mutex);
    temp_storage_entry& e = *entry;
    cudaError_t err = cudaSetDevice(e.device);
    if (err == cudaSuccess && e.scratch) err = cudaFree(e.scratch);  // waits for the device
    if (err == cudaSuccess && e.ticket) err = cudaFree(e.ticket);
    if (err == cudaSuccess && e.host) err = cudaFreeHost(e.host);
    if (err == cudaSuccess && e.status) err = cudaFree(e.status);
    if (err != cudaSuccess && first == cudaSuccess) first = err;
    e.scratch = nullptr;
    e.scratch_bytes = 0;
    e.ticket = nullptr;
    e.host = nullptr;
    e.host_device = nullptr;
    e.host_bytes = 0;
    e.status = nullptr;
    e.status_words = 0;
    e.epoch = 0;
  }
  (void)cudaSetDevice(current);
  PARPRIM_CUDA_CHECK(first);
  pool_registry& p = the_pools();
  const std::lock_guard<std::mutex> pool_lock(p.mutex);
  for (auto& [device, pool] : p.pools) {
    PARPRIM_CUDA_CHECK(cudaSetDevice(device));
    PARPRIM_CUDA_CHECK(cudaDeviceSynchronize());  // frees enqueued on streams have run
    PARPRIM_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  }
  PARPRIM_CUDA_CHECK(cudaSetDevice(current));
}

std::size_t cached_bytes() {
  registry& r = the_registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::size_t total = 0;
  for (auto& [key, entry] : r.entries) {
    const std::lock_guard<std::mutex> entry_lock(entry->mutex);
    total +=
        entry->scratch_bytes + entry->status_words * sizeof(unsigned) + (entry->ticket ? 256 : 0);
  }
  pool_registry& p = the_pools();
  const std::lock_guard<std::mutex> pool_lock(p.mutex);
  for (auto& [device, pool] : p.pools) {
    std::uint64_t reserved = 0;
    PARPRIM_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    total += static_cast<std::size_t>(reserved);
  }
  return total;
}

int multiprocessor_count(int device) {
  static std::mutex mutex;
  static std::map<int, int> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it != cache.end()) return it->second;
  int count = 0;
  PARPRIM_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  cache.emplace(device, count);
  return count;
}

void check_device_pointer(const void* p, const char* fn, const char* what) {
  cudaPointerAttributes attr{};
  PARPRIM_CUDA_CHECK(cudaPointerGetAttributes(&attr, p));
  if (attr.type == cudaMemoryTypeUnregistered)
    throw invalid_argument(std::string("parprim::") + fn + ": " + what +
                           " points to host memory the GPU cannot read; a device_span must view "
                           "device (or managed or pinned) memory");
}

void check_stream(CUstream_st* stream, int device, const char* fn) {
  const auto handle = reinterpret_cast<std::uintptr_t>(stream);
  if (handle <= 2) return;  // default stream, cudaStreamLegacy, cudaStreamPerThread
  // While the stream is captured into a graph, cudaStreamGetDevice is not permitted (and a call
  // that is not permitted would invalidate the capture): the device was checked, if at all, by
  // the calls made before the capture.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  PARPRIM_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return;
  int owner = -1;
  PARPRIM_CUDA_CHECK(cudaStreamGetDevice(stream, &owner));
  if (owner != device)
    throw invalid_argument(std::string("parprim::") + fn + ": the stream belongs to device " +
                           std::to_string(owner) + " but the call runs on device " +
                           std::to_string(device));
}

}  // namespace parprim::detail::cuda

namespace parprim {

void cuda_release_cached_memory() {
  detail::cuda::release_cache();
}

std::size_t cuda_cached_memory_bytes() {
  return detail::cuda::cached_bytes();
}

}  // namespace parprim
