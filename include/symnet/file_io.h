/*!
 * \brief Crash-safe file writes. Every file symnet writes for a user (.params, .states,
 *  -symbol.json, .rec/.idx, logs, plots) goes through here: the bytes go to a temporary file in
 *  the target's folder, which is fsync'ed, renamed over the target, and the folder fsync'ed. A
 *  crash or a failed write (disk full, no permission) therefore leaves either the previous file
 *  or the new one, never a torn mix, and an error names the file and the system's reason.
 */
#ifndef SYMNET_FILE_IO_H_
#define SYMNET_FILE_IO_H_

#include <cstddef>
#include <string>

// Test hook for the kill test: SYMNET_TEST_KILL_IN_SAVE=N makes the N-th atomic write of the
// process (counting from 1) SIGKILL itself after the temporary file is complete and fsync'ed but
// before the rename, the worst moment for a crash.

namespace symnet {

/*! \brief Replaces `path` with `bytes` atomically and durably (see above). */
void WriteFileAtomically(const std::string& path, const std::string& bytes);

/*!
 * \brief A file written piece by piece that appears at `path` only on Commit() (e.g. a RecordIO
 *  file): pieces go to a temporary file next to it; Commit() fsyncs and renames as above. If the
 *  object is destroyed without Commit() (an error while writing), the temporary file is removed
 *  and the previous `path`, if any, is left as it was.
 */
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void Write(const void* data, size_t size);
  /*! \brief Bytes written so far. */
  size_t Tell() const { return written_; }
  void Commit();
  const std::string& path() const { return path_; }

 private:
  void Discard();  // close and remove the temporary file, if it is still open
  std::string path_, tmp_;
  int fd_ = -1;
  size_t written_ = 0;
};

/*! \brief Appends one line (a '\n' is added) to `path` with a single write(2), so that a killed
 *  process leaves at most one torn line at the end of a log and every earlier line intact. */
void AppendLine(const std::string& path, const std::string& line);

/*! \brief The whole file; throws "cannot open <kind> '<path>': <reason>" when it cannot be read. */
std::string ReadFile(const std::string& path, const std::string& kind);

/*! \brief Before appending to an existing log: when it does not end in '\n' (a run killed while
 *  writing its last line), cuts that torn line off and returns it; "" otherwise. */
std::string TruncateTornLastLine(const std::string& path);

}  // namespace symnet

#endif  // SYMNET_FILE_IO_H_
