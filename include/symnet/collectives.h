/*!
 * \brief Collectives: across the devices of one process (AllReduceSum) and across the processes
 *  of a distributed job (namespace dist: MPI for CPU tensors, launched by mpirun).
 */
#ifndef SYMNET_COLLECTIVES_H_
#define SYMNET_COLLECTIVES_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

/*!
 * \brief In-place sum across devices: per_device[d][k] is array k of device d (same shapes and
 *  dtypes on every device); afterwards every per_device[d][k] holds the sum over d. GPU arrays
 *  use NCCL (one group call, on each device's stream, no host sync); CPU arrays are summed
 *  on the host. All devices must be of one type.
 */
void AllReduceSum(const std::vector<std::vector<NDArray>>& per_device);

/*!
 * \brief The processes of a distributed job ("ranks"), started by `mpirun -np N`. Every call
 *  below is collective: each rank makes the same calls in the same order with arrays of the same
 *  shapes and dtypes. MPI runs on one communication thread; a call that waits longer than
 *  SYMNET_DIST_TIMEOUT seconds (default 300) for the other ranks stops the process with an error,
 *  and a watchdog stops every rank, naming the failed one, as soon as one rank dies.
 */
namespace dist {

/*! \brief True when symnet was built with MPI. */
bool Available();
/*! \brief Starts MPI (once; later calls do nothing). Sets this rank's OpenMP thread count to
 *  cores / ranks on this machine unless OMP_NUM_THREADS is set. A process not started by mpirun
 *  is a job of one rank. */
void Init();
bool Initialized();
int Rank();
int Size();
/*! \brief This rank's index among the ranks on its machine, and their number. */
int LocalRank();
int LocalSize();

/*! \brief In-place sum over the ranks, arrays fused into one message per dtype group. Float32,
 *  float16 and bfloat16 are summed in float32 (16-bit arrays travel as float32), float64 in
 *  float64, integer and bool types in int64. */
void AllReduceSum(const std::vector<NDArray>& arrays);
/*!
 * \brief In-place sum over the ranks of `count` doubles, for operators that reduce across the job
 *  (SyncBatchNorm's per-channel sums); `what` names the call in errors. Starts the job (Init) on
 *  first use; in a job of one rank the values stay as they are.
 */
void AllReduceSum(double* values, size_t count, const std::string& what);
/*! \brief Every rank's arrays become root's (bytes as they are, any dtype). */
void Broadcast(const std::vector<NDArray>& arrays, int root = 0);
/*! \brief Shape (Size(), *a.shape()): row r is rank r's array. */
NDArray AllGather(const NDArray& a);
void Barrier();
/*! \brief True on every rank when `flag` is true on any. */
bool Any(bool flag);
/*! \brief Ends MPI cleanly (tells the watchdog this rank finished); called at exit. */
void Finalize();
/*! \brief Ends this rank with `code` without finalizing: the other ranks' watchdogs name it as
 *  failed (for a process that is exiting because of an error). */
[[noreturn]] void AbortProcess(int code);

/*!
 * \brief Sums gradients over the ranks during backward: the gradients are grouped into buckets
 *  (in the order backward produces them, bucket_bytes each) and a bucket's all-reduce starts on
 *  the communication thread as soon as its last gradient is ready (MarkReady), overlapping
 *  communication with the rest of backward. Wait() returns when every bucket is summed.
 */
class GradientReducer {
 public:
  /*!
   * \param grads the gradient arrays (none ones are skipped), in any order
   * \param ready_order indices into grads in the order backward makes them (from the executor);
   *  missing indices are appended in reverse order
   */
  GradientReducer(std::vector<NDArray> grads, const std::vector<size_t>& ready_order,
                  size_t bucket_bytes = 25u << 20);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /*! \brief Gradient `index` is final for this step: its bucket starts when complete. */
  void MarkReady(size_t index);
  /*! \brief Starts the buckets not started yet and waits for all; the next step begins. */
  void Wait();
  size_t num_buckets() const;
  /*! \brief The gradient indices of bucket b. */
  std::vector<size_t> bucket(size_t b) const;
  /*!
   * \brief The last step's events in order: "ready <grad index>", "start <bucket>" (the
   *  communication thread has taken the bucket; recorded before MarkReady returns) and
   *  "done <bucket>".
   */
  std::vector<std::string> events() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace dist
}  // namespace symnet

#endif  // SYMNET_COLLECTIVES_H_
