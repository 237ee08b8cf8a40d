/*!
 * \brief RecordIO files (dmlc-core's format, as MXNet's im2rec writes them): records framed by
 *  the magic 0xced7230a and a length word, padded to 4 bytes. Plus MXNet's image record header.
 */
#ifndef SYMNET_RECORDIO_H_
#define SYMNET_RECORDIO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace symnet {

/*! \brief A RecordIO file opened for reading ('r') or writing ('w'). */
class RecordIOFile {
 public:
  RecordIOFile(const std::string& path, char mode);
  /*! \brief Reads records from bytes in memory, as from a file called `name` (fuzzing, tests). */
  static std::unique_ptr<RecordIOFile> FromBytes(const std::string& bytes, const std::string& name);
  ~RecordIOFile();
  RecordIOFile(const RecordIOFile&) = delete;
  RecordIOFile& operator=(const RecordIOFile&) = delete;

  /*! \brief Appends a record; returns its byte offset (for an .idx file). */
  size_t Write(const std::string& record);
  /*! \brief The next record; false at the end. Damage raises an error naming file and record. */
  bool Read(std::string* record);
  /*! \brief Jumps to a record offset (from Write or an .idx file). */
  void Seek(size_t offset);
  size_t Tell();
  /*! \brief Back to the first record. */
  void Reset() { Seek(0); }
  /*! \brief Ends reading, or publishes a written file: it appears at its path, complete, only
   *  now (temporary file, fsync, rename). */
  void Close();
  /*! \brief Ends without publishing: a file being written is discarded and an earlier file of
   *  that name stays (also what the destructor does when Close() was not called). */
  void Abort();
  const std::string& path() const { return path_; }

 private:
  explicit RecordIOFile(const std::string& name);  // FromBytes
  struct Impl;
  std::string path_;
  char mode_;
  std::unique_ptr<Impl> impl_;
};

/*! \brief MXNet's image record header: flag (number of extra labels), label, id, id2. */
struct ImageRecordHeader {
  uint32_t flag = 0;
  float label = 0;
  uint64_t id = 0, id2 = 0;
  std::vector<float> labels;  // flag > 0: the labels (and `label` is unused)
};

/*! \brief header + payload -> record bytes (MXNet's recordio.pack). */
std::string PackImageRecord(const ImageRecordHeader& header, const std::string& payload);
/*! \brief record bytes -> header and payload; throws on a record too short for its header. */
void UnpackImageRecord(const std::string& record, ImageRecordHeader* header, std::string* payload);

/*! \brief Offsets of every record of a .rec file (a sequential scan), in file order. */
std::vector<size_t> ScanRecordOffsets(const std::string& path);
/*! \brief Offsets from an MXNet .idx file ("key\toffset" lines), by key order in the file. */
std::vector<size_t> ReadIndexFile(const std::string& path);
/*! \brief ReadIndexFile on the file's text (`name` is used in messages). */
std::vector<size_t> ParseIndexFile(const std::string& text, const std::string& name);

}  // namespace symnet

#endif  // SYMNET_RECORDIO_H_
