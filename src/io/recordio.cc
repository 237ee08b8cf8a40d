/*! \brief RecordIO through dmlc-core, with errors that name the file and the record. */
#include "symnet/recordio.h"

#include <dmlc/io.h>
#include <dmlc/recordio.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "symnet/base.h"
#include "symnet/file_io.h"

namespace symnet {

namespace {

/*! \brief dmlc's RecordIOWriter over an AtomicFileWriter: the .rec file appears complete at its
 *  path on Close(), or not at all (an earlier file of that name stays as it was). */
class AtomicWriteStream : public dmlc::SeekStream {
 public:
  explicit AtomicWriteStream(const std::string& path) : file_(path) {}
  size_t Read(void*, size_t) override {
    SYMNET_THROW << "RecordIO file '" << file_.path() << "' is open for writing, not reading";
  }
  void Write(const void* data, size_t size) override { file_.Write(data, size); }
  void Seek(size_t) override {
    SYMNET_THROW << "cannot seek in RecordIO file '" << file_.path() << "' opened for writing";
  }
  size_t Tell() override { return file_.Tell(); }
  void Commit() { file_.Commit(); }

 private:
  AtomicFileWriter file_;
};

}  // namespace

struct RecordIOFile::Impl {
  std::unique_ptr<dmlc::SeekStream> read_stream;
  std::unique_ptr<AtomicWriteStream> write_stream;
  std::unique_ptr<dmlc::RecordIOReader> reader;
  std::unique_ptr<dmlc::RecordIOWriter> writer;
  size_t records = 0;  // records read since the last seek (for messages)
};

RecordIOFile::RecordIOFile(const std::string& path, char mode)
    : path_(path), mode_(mode), impl_(std::make_unique<Impl>()) {
  SYMNET_CHECK(mode == 'r' || mode == 'w')
      << "RecordIO mode must be 'r' or 'w', not '" << mode << "'";
  if (mode == 'r') {
    impl_->read_stream.reset(dmlc::SeekStream::CreateForRead(path.c_str(), true));
    SYMNET_CHECK(impl_->read_stream) << "cannot open RecordIO file '" << path << "' for reading";
    impl_->reader = std::make_unique<dmlc::RecordIOReader>(impl_->read_stream.get());
  } else {
    impl_->write_stream = std::make_unique<AtomicWriteStream>(path);
    impl_->writer = std::make_unique<dmlc::RecordIOWriter>(impl_->write_stream.get());
  }
}

// a writer destroyed without Close() (an exception unwinding, say) publishes nothing: the
// temporary file goes and an earlier file of that name stays as it was
RecordIOFile::~RecordIOFile() { Abort(); }

size_t RecordIOFile::Write(const std::string& record) {
  SYMNET_CHECK(impl_->writer) << "RecordIO file '" << path_ << "' is not open for writing";
  const size_t pos = impl_->writer->Tell();
  impl_->writer->WriteRecord(record);
  return pos;
}

bool RecordIOFile::Read(std::string* record) {
  SYMNET_CHECK(impl_->reader) << "RecordIO file '" << path_ << "' is not open for reading";
  try {
    const bool ok = impl_->reader->NextRecord(record);
    if (ok) ++impl_->records;
    return ok;
  } catch (const dmlc::Error&) {
    SYMNET_THROW << "RecordIO file '" << path_ << "' is damaged at record " << impl_->records
                 << " (after byte " << impl_->read_stream->Tell() << "): bad magic or length";
  }
}

void RecordIOFile::Seek(size_t offset) {
  if (impl_->reader) {
    impl_->reader->Seek(offset);
    impl_->records = 0;
  } else {
    SYMNET_THROW << "cannot seek in RecordIO file '" << path_ << "' opened for writing";
  }
}

size_t RecordIOFile::Tell() {
  SYMNET_CHECK(impl_->reader || impl_->writer) << "RecordIO file '" << path_ << "' is closed";
  return impl_->reader ? impl_->reader->Tell() : impl_->writer->Tell();
}

void RecordIOFile::Abort() {
  impl_->reader.reset();
  impl_->writer.reset();
  impl_->read_stream.reset();
  impl_->write_stream.reset();  // AtomicFileWriter's destructor removes the temporary file
}

void RecordIOFile::Close() {
  impl_->writer.reset();
  if (impl_->write_stream) {
    std::unique_ptr<AtomicWriteStream> w = std::move(impl_->write_stream);
    w->Commit();  // fsync + rename: the file appears whole
  }
  Abort();  // nothing left to publish: this just releases the reader
}

std::string PackImageRecord(const ImageRecordHeader& h, const std::string& payload) {
  std::string out(24 + 4 * h.labels.size(), '\0');
  const uint32_t flag = static_cast<uint32_t>(h.labels.size());
  std::memcpy(&out[0], &flag, 4);
  std::memcpy(&out[4], &h.label, 4);
  std::memcpy(&out[8], &h.id, 8);
  std::memcpy(&out[16], &h.id2, 8);
  if (!h.labels.empty()) std::memcpy(&out[24], h.labels.data(), 4 * h.labels.size());
  return out + payload;
}

void UnpackImageRecord(const std::string& rec, ImageRecordHeader* h, std::string* payload) {
  SYMNET_CHECK(rec.size() >= 24) << "image record of " << rec.size()
                                 << " bytes is shorter than its 24-byte header";
  std::memcpy(&h->flag, &rec[0], 4);
  std::memcpy(&h->label, &rec[4], 4);
  std::memcpy(&h->id, &rec[8], 8);
  std::memcpy(&h->id2, &rec[16], 8);
  const size_t extra = 4 * static_cast<size_t>(h->flag);
  SYMNET_CHECK(h->flag < (1u << 20) && rec.size() >= 24 + extra)
      << "image record header announces " << h->flag << " labels but the record has " << rec.size()
      << " bytes";
  h->labels.resize(h->flag);
  if (h->flag) std::memcpy(h->labels.data(), &rec[24], extra);
  if (payload) payload->assign(rec, 24 + extra, std::string::npos);
}

std::vector<size_t> ScanRecordOffsets(const std::string& path) {
  RecordIOFile f(path, 'r');
  std::vector<size_t> offsets;
  std::string rec;
  while (true) {
    const size_t pos = f.Tell();
    if (!f.Read(&rec)) break;
    offsets.push_back(pos);
  }
  return offsets;
}

std::vector<size_t> ReadIndexFile(const std::string& path) {
  std::ifstream f(path);
  SYMNET_CHECK(f.good()) << "cannot open index file '" << path << "'";
  std::vector<size_t> offsets;
  std::string line;
  size_t n = 0;
  while (std::getline(f, line)) {
    ++n;
    if (line.empty()) continue;
    std::istringstream in(line);
    long long key;           // NOLINT(runtime/int)
    unsigned long long off;  // NOLINT(runtime/int)
    SYMNET_CHECK(in >> key >> off)
        << "index file '" << path << "' line " << n << " is not 'key<TAB>offset'";
    offsets.push_back(static_cast<size_t>(off));
  }
  return offsets;
}

}  // namespace symnet
