/*! \brief The communication thread: a queue of tasks run in order, with a timeout on waits. */
#include "comm_thread.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "watchdog.h"

namespace symnet {
namespace dist {
namespace {

/*! \brief A positive number of seconds from the environment, or `fallback`. */
double SecondsFromEnv(const char* var, double fallback) {
  const char* v = std::getenv(var);
  const double s = v != nullptr ? std::atof(v) : 0.0;
  return s > 0 ? s : fallback;
}

double TimeoutSeconds() {
  static const double t = SecondsFromEnv("SYMNET_DIST_TIMEOUT", 300.0);
  return t;
}

/*! \brief A task still waiting this long after another rank finished will never complete
 *  (SYMNET_DIST_FINISHED_GRACE seconds, default 5: the last collective may still be finishing). */
double FinishedPeerGraceSeconds() {
  static const double t = SecondsFromEnv("SYMNET_DIST_FINISHED_GRACE", 5.0);
  return t;
}

[[noreturn]] void Stop(const Task& task, const std::string& why) {
  std::fprintf(stderr, "symnet dist: rank %d: %s %s; stopping this rank\n", MessageRank(),
               task.what.c_str(), why.c_str());
  std::fflush(stderr);
  ExitWithoutFinishing(1);
}

}  // namespace

CommThread& CommThread::Get() {
  static CommThread* thread = new CommThread();  // never destroyed (see the header)
  return *thread;
}

CommThread::CommThread() {
  thread_ = std::thread([this] {
    BlockTerminationSignal();  // SIGTERM goes to the training thread (watchdog.h)
    Loop();
  });
  thread_.detach();
}

void CommThread::Loop() {
  for (;;) {
    std::shared_ptr<Task> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return !queue_.empty(); });
      task = queue_.front();
      queue_.pop_front();
    }
    if (task->on_start) task->on_start();
    {
      std::lock_guard<std::mutex> lock(task->mutex);
      task->started = true;
    }
    task->cv.notify_all();
    try {
      task->fn();
    } catch (...) {
      task->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(task->mutex);
      task->done = true;
    }
    task->cv.notify_all();
  }
}

std::shared_ptr<Task> CommThread::Post(const std::string& what, std::function<void()> fn,
                                       std::function<void()> on_start) {
  auto task = std::make_shared<Task>();
  task->fn = std::move(fn);
  task->on_start = std::move(on_start);
  task->what = what;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(task);
  }
  cv_.notify_one();
  return task;
}

void CommThread::WaitStarted(Task* task) {
  std::unique_lock<std::mutex> lock(task->mutex);
  const auto start = std::chrono::steady_clock::now();
  while (
      !task->cv.wait_for(lock, std::chrono::milliseconds(500), [task] { return task->started; })) {
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > TimeoutSeconds())
      Stop(*task, "has not begun after " + std::to_string(static_cast<int>(waited)) +
                      " s: the communication thread is stuck in an earlier collective");
  }
}

void CommThread::WaitDone(Task* task, bool timed) {
  {
    std::unique_lock<std::mutex> lock(task->mutex);
    const auto start = std::chrono::steady_clock::now();
    double finished_seen = -1;  // when another rank was first seen finished, in seconds
    while (
        !task->cv.wait_for(lock, std::chrono::milliseconds(500), [task] { return task->done; })) {
      if (!timed) continue;
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const int finished = FinishedRank();
      if (finished >= 0 && finished_seen < 0) finished_seen = waited;
      if (finished_seen >= 0 && waited - finished_seen > FinishedPeerGraceSeconds())
        Stop(*task,
             "waits for rank " + std::to_string(finished) +
                 ", which has finished its job (the ranks made different collective calls: a "
                 "different number of batches or steps?)");
      if (waited > TimeoutSeconds()) {
        char why[256];
        std::snprintf(
            why, sizeof(why),
            "has waited %.0f s for the other ranks (SYMNET_DIST_TIMEOUT): a rank is stuck "
            "or makes other collective calls (a different number of batches?)",
            TimeoutSeconds());
        Stop(*task, why);
      }
    }
  }
  if (task->error) std::rethrow_exception(task->error);
}

void CommThread::Run(const std::string& what, std::function<void()> fn, bool timed) {
  auto task = Post(what, std::move(fn));
  WaitDone(task.get(), timed);
}

}  // namespace dist
}  // namespace symnet
