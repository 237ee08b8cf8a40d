/*! \brief Crash-safe writes: temporary file, fsync, rename, fsync of the folder (POSIX). */
#include "symnet/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "symnet/base.h"

namespace symnet {
namespace {

std::string Reason() { return std::strerror(errno); }

/*! \brief Closes a descriptor when it goes out of scope (also when a check throws). */
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// the temporary name ends in neither the target's extension nor a checkpoint pattern, so a
// directory scan for "prefix-*.params" never mistakes it for a finished file
std::string TempPathFor(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

int OpenTemp(const std::string& path, const std::string& tmp) {
  SYMNET_CHECK(!path.empty()) << "cannot write a file with an empty name";
  struct stat st;
  SYMNET_CHECK(::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      << "cannot write '" << path << "': it is a folder";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  SYMNET_CHECK(fd >= 0) << "cannot write '" << path << "': creating '" << tmp
                        << "' failed: " << Reason();
  return fd;
}

void WriteAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    SYMNET_CHECK(n > 0) << "cannot write '" << path << "': " << (n < 0 ? Reason() : "no progress")
                        << " (the previous file, if any, is unchanged)";
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void KillHookBeforeRename() {
  // read at every save (a getenv is nothing next to an fsync), counted only while it is set
  static std::atomic<long> saves{0};  // NOLINT(runtime/int): atol's type
  const char* v = std::getenv("SYMNET_TEST_KILL_IN_SAVE");
  if (v && *v && ++saves == std::atol(v)) ::kill(::getpid(), SIGKILL);
}

// fsync the file, close it, rename it over the target and fsync the folder so that the rename
// itself survives a power loss; on any failure the temporary file goes and the target stays
void FinishTemp(int fd, const std::string& tmp, const std::string& path) {
  int err = 0;
  std::string what;
  if (::fsync(fd) != 0) {
    err = errno;
    what = "fsync";
  }
  if (::close(fd) != 0 && !err) {
    err = errno;
    what = "close";
  }
  if (!err) {
    KillHookBeforeRename();
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      err = errno;
      what = "rename";
    }
  }
  if (err) {
    ::unlink(tmp.c_str());
    SYMNET_THROW << "cannot write '" << path << "': " << what << " failed: " << std::strerror(err)
                 << " (the previous file, if any, is unchanged)";
  }
  const FdCloser dir{::open(FolderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  // some file systems cannot fsync a folder (EINVAL); a real I/O error must not pass quietly
  SYMNET_CHECK(dir.fd < 0 || ::fsync(dir.fd) == 0 || errno == EINVAL || errno == EBADF)
      << "wrote '" << path << "' but could not fsync its folder: " << Reason();
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  AtomicFileWriter w(path);
  w.Write(bytes.data(), bytes.size());
  w.Commit();
}

AtomicFileWriter::AtomicFileWriter(const std::string& path)
    : path_(path), tmp_(TempPathFor(path)), fd_(OpenTemp(path, tmp_)) {}

AtomicFileWriter::~AtomicFileWriter() { Discard(); }

void AtomicFileWriter::Discard() {
  if (fd_ < 0) return;  // committed, or already discarded
  ::close(fd_);
  ::unlink(tmp_.c_str());  // drop the partial file, keep the previous one
  fd_ = -1;
}

void AtomicFileWriter::Write(const void* data, size_t size) {
  SYMNET_CHECK(fd_ >= 0) << "'" << path_ << "' was already committed or failed";
  try {
    WriteAll(fd_, static_cast<const char*>(data), size, path_);
  } catch (...) {
    Discard();  // a later Commit() must not publish a partial file
    throw;
  }
  written_ += size;
}

void AtomicFileWriter::Commit() {
  SYMNET_CHECK(fd_ >= 0) << "'" << path_ << "' was already committed or failed";
  const int fd = fd_;
  fd_ = -1;
  FinishTemp(fd, tmp_, path_);
}

void AppendLine(const std::string& path, const std::string& line) {
  const FdCloser f{::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)};
  SYMNET_CHECK(f.fd >= 0) << "cannot open log '" << path << "' for appending: " << Reason();
  const std::string text = line + "\n";
  WriteAll(f.fd, text.data(), text.size(), path);
}

std::string ReadFile(const std::string& path, const std::string& kind) {
  std::ifstream f(path, std::ios::binary);
  SYMNET_CHECK(f.good()) << "cannot open " << kind << " '" << path << "': " << Reason();
  std::ostringstream ss;
  ss << f.rdbuf();
  SYMNET_CHECK(!f.bad()) << "cannot read " << kind << " '" << path << "': " << Reason();
  return ss.str();
}

std::string TruncateTornLastLine(const std::string& path) {
  const FdCloser f{::open(path.c_str(), O_RDWR | O_CLOEXEC)};
  if (f.fd < 0) return "";  // no log yet
  struct stat st;
  SYMNET_CHECK(::fstat(f.fd, &st) == 0) << "cannot read log '" << path << "': " << Reason();
  // read back from the end, 4 KiB at a time, to the last '\n'
  std::string tail;
  off_t pos = st.st_size;
  while (pos > 0) {
    const off_t start = pos >= 4096 ? pos - 4096 : 0;
    std::string chunk(static_cast<size_t>(pos - start), '\0');
    SYMNET_CHECK(::pread(f.fd, &chunk[0], chunk.size(), start) ==
                 static_cast<ssize_t>(chunk.size()))
        << "cannot read log '" << path << "': " << Reason();
    const size_t nl = chunk.rfind('\n');
    if (nl != std::string::npos) {
      tail = chunk.substr(nl + 1) + tail;
      pos = start + static_cast<off_t>(nl) + 1;
      break;
    }
    tail = chunk + tail;
    pos = start;
  }
  if (!tail.empty())
    SYMNET_CHECK(::ftruncate(f.fd, pos) == 0)
        << "cannot cut the torn last line of log '" << path << "': " << Reason();
  return tail;
}

}  // namespace symnet
