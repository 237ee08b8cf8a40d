/*! \brief dist::GradientReducer: gradient buckets summed across ranks while backward runs. */
#include <mutex>
#include <sstream>

#include "comm_thread.h"
#include "symnet/collectives.h"
#include "transport.h"
#include "wire.h"

namespace symnet {
namespace dist {

struct GradientReducer::Impl {
  struct Bucket {
    std::vector<size_t> members;
    std::vector<const NDArray*> arrays;  // the members' gradients
    transport::Wire wire = transport::Wire::kFloat32;
    size_t count = 0;       // elements
    std::vector<char> buf;  // packed gradients (SumOverRanks)
    size_t pending = 0;     // members not ready yet in this step
    std::shared_ptr<Task> task;
  };
  std::vector<NDArray> grads;
  std::vector<Bucket> buckets;
  std::vector<int> bucket_of;  // -1: no gradient
  bool multi = false;
  std::mutex mutex;  // guards events (the communication thread appends too)
  std::vector<std::string> events;
  bool step_open = false;

  void Log(const std::string& e) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(e);
  }

  /*! \brief Sums bucket b on the communication thread; a single float32 gradient on the CPU is
   *  summed where it lies, others are packed into the bucket's buffer and back. */
  void Start(size_t b) {
    Bucket& bk = buckets[b];
    std::ostringstream what;
    what << "all-reduce of gradient bucket " << b << " (" << bk.members.size() << " gradients, "
         << bk.count * DTypeSize(WireDType(bk.wire)) / 1048576.0 << " MB)";
    // wait for the thread to take it only when it is idle (no bucket before it still running):
    // then the start is in the event log before backward goes on, and nothing is held up
    bool idle = true;
    for (const Bucket& other : buckets)
      if (other.task && &other != &bk) {
        std::lock_guard<std::mutex> lock(other.task->mutex);
        idle = idle && other.task->done;
      }
    bk.task = CommThread::Get().Post(
        what.str(),
        [this, b] {
          Bucket& k = buckets[b];
          SumOverRanks(k.arrays, k.wire, &k.buf);
          Log("done " + std::to_string(b));
        },
        [this, b] { Log("start " + std::to_string(b)); });
    if (idle) CommThread::WaitStarted(bk.task.get());
  }

  void OpenStep() {
    if (step_open) return;
    step_open = true;
    {
      std::lock_guard<std::mutex> lock(mutex);
      events.clear();
    }
    for (Bucket& bk : buckets) {
      bk.pending = bk.members.size();
      bk.task.reset();
    }
  }
};

GradientReducer::GradientReducer(std::vector<NDArray> grads, const std::vector<size_t>& ready_order,
                                 size_t bucket_bytes)
    : impl_(new Impl) {
  Impl& im = *impl_;
  im.grads = std::move(grads);
  im.multi = Initialized() && Size() > 1;
  std::vector<size_t> order;
  std::vector<bool> seen(im.grads.size(), false);
  for (size_t i : ready_order) {
    SYMNET_CHECK(i < im.grads.size())
        << "GradientReducer: ready order names gradient " << i << " of " << im.grads.size();
    if (!seen[i]) order.push_back(i);
    seen[i] = true;
  }
  for (size_t i = im.grads.size(); i-- > 0;)
    if (!seen[i]) order.push_back(i);
  im.bucket_of.assign(im.grads.size(), -1);
  size_t bytes = 0;
  for (size_t i : order) {
    const NDArray& g = im.grads[i];
    if (g.is_none()) continue;
    const transport::Wire w = WireOf(g.dtype());
    const size_t gb = static_cast<size_t>(g.Size()) * DTypeSize(WireDType(w));
    if (im.buckets.empty() || im.buckets.back().wire != w ||
        (bytes > 0 && bytes + gb > bucket_bytes)) {
      im.buckets.emplace_back();
      im.buckets.back().wire = w;
      bytes = 0;
    }
    Impl::Bucket& bk = im.buckets.back();
    bk.members.push_back(i);
    bk.count += static_cast<size_t>(g.Size());
    bytes += gb;
    im.bucket_of[i] = static_cast<int>(im.buckets.size() - 1);
  }
  for (Impl::Bucket& bk : im.buckets)
    for (size_t m : bk.members) bk.arrays.push_back(&im.grads[m]);

  // every rank must have the same buckets, or the sums would mix up gradients
  if (im.multi) {
    std::ostringstream sig;
    for (const Impl::Bucket& bk : im.buckets)
      sig << bk.count << '/' << static_cast<int>(bk.wire) << ';';
    const int64_t mine[2] = {static_cast<int64_t>(im.buckets.size()),
                             static_cast<int64_t>(std::hash<std::string>()(sig.str()))};
    std::vector<int64_t> all(2 * Size());
    AllGather(NDArray::FromBuffer(mine, Shape({2}), DType::kInt64, DType::kInt64))
        .CopyToBuffer(all.data(), DType::kInt64);
    for (int r = 0; r < Size(); ++r)
      SYMNET_CHECK(all[2 * r] == mine[0] && all[2 * r + 1] == mine[1])
          << "GradientReducer: rank " << r << " has other gradients than rank " << Rank() << " ("
          << im.buckets.size() << " buckets of " << sig.str()
          << " elements/wire): every rank must train the same network";
  }
}

GradientReducer::~GradientReducer() {
  // a bucket still running points into this object: wait for it
  for (Impl::Bucket& bk : impl_->buckets)
    if (bk.task) CommThread::WaitDone(bk.task.get());
}

void GradientReducer::MarkReady(size_t index) {
  Impl& im = *impl_;
  SYMNET_CHECK(index < im.grads.size()) << "GradientReducer::MarkReady: no gradient " << index;
  im.OpenStep();
  const int b = im.bucket_of[index];
  if (b < 0) return;
  im.Log("ready " + std::to_string(index));
  Impl::Bucket& bk = im.buckets[b];
  if (bk.task || bk.pending == 0) return;  // already started (a gradient marked twice)
  if (--bk.pending == 0 && im.multi) im.Start(b);
}

void GradientReducer::Wait() {
  Impl& im = *impl_;
  im.OpenStep();
  if (im.multi) {
    im.step_open = false;  // the next MarkReady starts a new step, also after an error here
    for (size_t b = 0; b < im.buckets.size(); ++b)
      if (!im.buckets[b].task) im.Start(b);
    std::exception_ptr error;
    for (Impl::Bucket& bk : im.buckets) {
      try {
        CommThread::WaitDone(bk.task.get());
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
  im.step_open = false;
}

size_t GradientReducer::num_buckets() const { return impl_->buckets.size(); }

std::vector<size_t> GradientReducer::bucket(size_t b) const {
  SYMNET_CHECK(b < impl_->buckets.size()) << "GradientReducer: no bucket " << b;
  return impl_->buckets[b].members;
}

std::vector<std::string> GradientReducer::events() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->events;
}

}  // namespace dist
}  // namespace symnet
