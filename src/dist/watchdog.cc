/*! \brief Failure detection for distributed jobs over plain TCP connections to rank 0. */
#include "watchdog.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "symnet/base.h"

namespace symnet {
namespace dist {
namespace {

enum MessageType : int32_t { kHello = 1, kBye = 2, kDead = 3 };
struct Message {
  int32_t type, rank, pid;
  char host[52];
};

struct Peer {
  int fd = -1;
  int rank = -1;
  int pid = 0;
  std::string host;
};

std::mutex g_mutex;         // guards g_peers and the sends
std::vector<Peer> g_peers;  // rank 0: every other rank; others: rank 0
std::atomic<bool> g_finished{false};
std::atomic<int> g_dead{-1};
std::atomic<int> g_finished_rank{-1};
std::atomic<bool> g_forked_child{false};
std::atomic_flag g_reported = ATOMIC_FLAG_INIT;
int g_rank = 0;
char g_verdict[512];  // the message, written before g_dead is set (read by the signal handler)
char g_sigterm_unknown[256];

bool SendMessage(int fd, int32_t type, int32_t rank) {
  Message m{};
  m.type = type;
  m.rank = rank;
  m.pid = static_cast<int32_t>(getpid());
  gethostname(m.host, sizeof(m.host) - 1);
  return send(fd, &m, sizeof(m), MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof(m));
}

bool ReadMessage(int fd, Message* m) {
  return recv(fd, m, sizeof(*m), MSG_WAITALL) == static_cast<ssize_t>(sizeof(*m));
}

void WriteStderr(const char* s) {
  const ssize_t n = write(2, s, std::strlen(s));
  (void)n;
}

/*! \brief Rank `dead` failed: rank 0 tells the others; this rank prints why and ends. */
[[noreturn]] void Report(int dead, const std::string& who) {
  std::snprintf(g_verdict, sizeof(g_verdict),
                "symnet dist: rank %d: stopping because rank %d%s ended before the job finished "
                "(it was killed or exited on an error; its own output says why)\n",
                g_rank, dead, who.c_str());
  g_dead.store(dead);
  if (g_rank == 0) {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const Peer& p : g_peers)
      if (p.fd >= 0 && p.rank != dead) SendMessage(p.fd, kDead, dead);
  }
  if (!g_reported.test_and_set()) WriteStderr(g_verdict);
  _exit(1);
}

/*! \brief In a forked child (a data-loader worker): not a rank. Its copies of the watchdog's
 *  connections are closed (so that a crashed parent is still noticed) and SIGTERM is the default.
 */
void AfterForkInChild() {
  g_forked_child.store(true);
  g_finished.store(true);
  signal(SIGTERM, SIG_DFL);
  for (Peer& p : g_peers)
    if (p.fd >= 0) close(p.fd);
  g_peers.clear();
}

void WatchLoop() {
  BlockTerminationSignal();
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Peer> peers;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      for (const Peer& p : g_peers)
        if (p.fd >= 0) {
          fds.push_back({p.fd, POLLIN, 0});
          peers.push_back(p);
        }
    }
    if (fds.empty() || g_finished.load()) return;
    if (poll(fds.data(), fds.size(), 500) <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Message m{};
      const bool got = ReadMessage(fds[i].fd, &m);
      if (g_finished.load()) return;
      const std::string who =
          " (host " + peers[i].host + ", pid " + std::to_string(peers[i].pid) + ")";
      if (got && m.type == kDead) Report(m.rank, "");
      if (!got) Report(peers[i].rank, who);
      if (m.type != kBye) continue;
      // a rank finished normally: remembered (a collective waiting for it will never complete);
      // rank 0 passes it on. Rank 0's own goodbye, or the finished rank's connection, is closed.
      g_finished_rank.store(m.rank);
      std::lock_guard<std::mutex> lock(g_mutex);
      for (Peer& p : g_peers) {
        if (g_rank == 0 && p.fd >= 0 && p.rank != m.rank) SendMessage(p.fd, kBye, m.rank);
        if (p.fd == fds[i].fd && (g_rank == 0 || m.rank == 0)) {
          close(p.fd);
          p.fd = -1;
        }
      }
    }
  }
}

void OnSigterm(int) {
  // mpirun stops the other ranks when one fails; the watchdog usually knows which within
  // milliseconds, so wait for its verdict a little before answering the signal
  for (int i = 0; i < 30 && g_dead.load() < 0; ++i) {
    timespec ts{0, 50 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  if (!g_reported.test_and_set()) WriteStderr(g_dead.load() >= 0 ? g_verdict : g_sigterm_unknown);
  _exit(143);
}

int Listen(bool local_only, int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  SYMNET_CHECK(fd >= 0) << "dist watchdog: socket() failed: " << std::strerror(errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(local_only ? INADDR_LOOPBACK : INADDR_ANY);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  SYMNET_CHECK(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
               listen(fd, 128) == 0 &&
               getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      << "dist watchdog: cannot listen on a TCP port: " << std::strerror(errno);
  *port = ntohs(addr.sin_port);
  return fd;
}

int Connect(const std::string& host, int port) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) == 0) {
      for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
        const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          freeaddrinfo(res);
          return fd;
        }
        if (fd >= 0) close(fd);
      }
      freeaddrinfo(res);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return -1;
}

}  // namespace

void StartWatchdog(const transport::Layout& layout) {
  g_rank = layout.rank;
  std::snprintf(g_sigterm_unknown, sizeof(g_sigterm_unknown),
                "symnet dist: rank %d: stopped by the launcher (SIGTERM): another rank failed or "
                "the job was cancelled\n",
                g_rank);
  const bool one_machine = layout.local_size == layout.size;
  char address[256] = {0};  // "host port pid" of rank 0
  int listen_fd = -1;
  if (layout.rank == 0) {
    int port = 0;
    listen_fd = Listen(one_machine, &port);
    char host[200] = "127.0.0.1";
    if (!one_machine) gethostname(host, sizeof(host) - 1);
    std::snprintf(address, sizeof(address), "%s %d %d", host, port, static_cast<int>(getpid()));
  }
  transport::Broadcast(address, sizeof(address), 0);
  char host[200] = {0};
  int port = 0, pid0 = 0;
  std::sscanf(address, "%199s %d %d", host, &port, &pid0);
  if (layout.rank == 0) {
    // every other rank connects and says hello; one that cannot (a firewall) leaves its failure
    // to mpirun and the collective timeouts
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (static_cast<int>(g_peers.size()) < layout.size - 1 &&
           std::chrono::steady_clock::now() < deadline) {
      pollfd p{listen_fd, POLLIN, 0};
      if (poll(&p, 1, 500) <= 0) continue;
      const int fd = accept(listen_fd, nullptr, nullptr);
      Message m{};
      if (fd < 0 || !ReadMessage(fd, &m) || m.type != kHello) {
        if (fd >= 0) close(fd);
        continue;
      }
      g_peers.push_back({fd, m.rank, m.pid, std::string(m.host)});
    }
    close(listen_fd);
    if (static_cast<int>(g_peers.size()) < layout.size - 1)
      std::fprintf(stderr, "symnet dist: rank 0: only %zu of %d ranks reached the watchdog\n",
                   g_peers.size(), layout.size - 1);
  } else {
    const int fd = Connect(host, port);
    if (fd < 0) {
      std::fprintf(stderr, "symnet dist: rank %d: cannot reach rank 0's watchdog at %s:%d\n",
                   layout.rank, host, port);
      return;
    }
    SendMessage(fd, kHello, layout.rank);
    g_peers.push_back({fd, 0, pid0, host});
  }
  pthread_atfork(nullptr, nullptr, AfterForkInChild);
  struct sigaction old {};
  sigaction(SIGTERM, nullptr, &old);
  if (old.sa_handler == SIG_DFL) {
    struct sigaction sa {};
    sa.sa_handler = OnSigterm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
  }
  std::thread(WatchLoop).detach();
}

void FinishWatchdog() {
  if (g_finished.exchange(true)) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Peer& p : g_peers)
    if (p.fd >= 0) {
      SendMessage(p.fd, kBye, g_rank);
      shutdown(p.fd, SHUT_WR);
    }
}

int FinishedRank() { return g_finished_rank.load(); }

bool InForkedChild() { return g_forked_child.load(); }

void BlockTerminationSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void ExitWithoutFinishing(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code);
}

}  // namespace dist
}  // namespace symnet
