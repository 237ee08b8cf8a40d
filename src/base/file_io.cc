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

#include "symnet/base.h"

namespace symnet {
namespace {

std::string Reason() { return std::strerror(errno); }

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
  const int dir = ::open(FolderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    const int rc = ::fsync(dir);
    const int e = errno;
    ::close(dir);
    // some file systems cannot fsync a folder (EINVAL); a real I/O error must not pass quietly
    SYMNET_CHECK(rc == 0 || e == EINVAL || e == EBADF)
        << "wrote '" << path << "' but could not fsync its folder: " << std::strerror(e);
  }
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  AtomicFileWriter w(path);
  w.Write(bytes.data(), bytes.size());
  w.Commit();
}

AtomicFileWriter::AtomicFileWriter(const std::string& path)
    : path_(path), tmp_(TempPathFor(path)), fd_(OpenTemp(path, tmp_)) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {  // not committed: drop the partial file, keep the previous one
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFileWriter::Write(const void* data, size_t size) {
  SYMNET_CHECK(fd_ >= 0) << "'" << path_ << "' was already committed";
  try {
    WriteAll(fd_, static_cast<const char*>(data), size, path_);
  } catch (...) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
    fd_ = -1;
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
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  SYMNET_CHECK(fd >= 0) << "cannot open log '" << path << "' for appending: " << Reason();
  const std::string text = line + "\n";
  try {
    WriteAll(fd, text.data(), text.size(), path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

std::string TruncateTornLastLine(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return "";  // no log yet
  struct stat st;
  std::string torn;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    // read back from the end to the last '\n' (logs are small next to the data: chunks of 4 KiB)
    off_t end = st.st_size, keep = 0;
    char c = 0;
    SYMNET_CHECK(::pread(fd, &c, 1, end - 1) == 1)
        << "cannot read log '" << path << "': " << Reason();
    if (c != '\n') {
      std::string tail;
      for (off_t pos = end; pos > 0 && keep == 0;) {
        const off_t start = pos >= 4096 ? pos - 4096 : 0;
        std::string chunk(static_cast<size_t>(pos - start), '\0');
        SYMNET_CHECK(::pread(fd, &chunk[0], chunk.size(), start) ==
                     static_cast<ssize_t>(chunk.size()))
            << "cannot read log '" << path << "': " << Reason();
        const size_t nl = chunk.rfind('\n');
        if (nl != std::string::npos) keep = start + static_cast<off_t>(nl) + 1;
        tail = chunk.substr(nl == std::string::npos ? 0 : nl + 1) + tail;
        pos = start;
      }
      torn = tail;
      SYMNET_CHECK(::ftruncate(fd, keep) == 0)
          << "cannot cut the torn last line of log '" << path << "': " << Reason();
    }
  }
  ::close(fd);
  return torn;
}

}  // namespace symnet
