/*!
 * \brief The communication thread of symnet::dist: every MPI call runs on it (MPI is started
 *  there, MPI_THREAD_FUNNELED), so gradient buckets can be summed while backward goes on.
 */
#ifndef SYMNET_SRC_DIST_COMM_THREAD_H_
#define SYMNET_SRC_DIST_COMM_THREAD_H_

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace symnet {
namespace dist {

/*! \brief One piece of work handed to the communication thread. */
struct Task {
  std::function<void()> fn;
  std::function<void()> on_start;  // run on the thread before `started` is signalled
  std::string what;                // names it in the timeout message
  std::mutex mutex;
  std::condition_variable cv;
  bool started = false, done = false;
  std::exception_ptr error;
};

class CommThread {
 public:
  /*! \brief The thread of this process (started on first use, never destroyed: it may be blocked
   *  in MPI when the process ends). */
  static CommThread& Get();
  /*! \brief Runs fn on the thread and returns when it has; rethrows its error. timed=false waits
   *  as long as it takes (MPI_Finalize waits for the slowest rank to finish its work). */
  void Run(const std::string& what, std::function<void()> fn, bool timed = true);
  /*! \brief Queues fn and returns at once. */
  std::shared_ptr<Task> Post(const std::string& what, std::function<void()> fn,
                             std::function<void()> on_start = nullptr);
  /*! \brief Returns when the task has begun (queued work before it is done). */
  static void WaitStarted(Task* task);
  /*! \brief Returns when the task is done; rethrows its error. Waiting longer than
   *  SYMNET_DIST_TIMEOUT seconds, or a few seconds after another rank has finished (it will
   *  never join), stops the process with a message naming the task. */
  static void WaitDone(Task* task, bool timed = true);

 private:
  CommThread();
  void Loop();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Task>> queue_;
  std::thread thread_;
};

/*! \brief This rank's number for messages (0 before Init). */
int MessageRank();

}  // namespace dist
}  // namespace symnet

#endif  // SYMNET_SRC_DIST_COMM_THREAD_H_
