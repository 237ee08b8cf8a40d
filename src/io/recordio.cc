/*! \brief RecordIO files: written through dmlc-core, read by a bounds-checked reader whose errors
 *  name the file, the byte offset and the record. */
#include "symnet/recordio.h"

#include <dmlc/io.h>
#include <dmlc/recordio.h>

#include <cstring>
#include <fstream>
#include <istream>
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

/*!
 * \brief The reading side, symnet's own rather than dmlc's reader: every length is checked against
 *  the bytes left in the file before anything is allocated (dmlc's reader resizes to whatever a
 *  damaged length word says, up to 512 MB per part), and errors name the byte offset.
 *  Format (dmlc-core's, written by MXNet's im2rec): per part, the magic word, a word of
 *  cflag << 29 | length, the data, zero padding to 4 bytes. A record whose data holds the magic
 *  at a 4-byte boundary is split there into parts: cflag 1 (first), 2 (middle), 3 (last), and
 *  the magic between parts is part of the record; cflag 0 is a whole record.
 */
class RecordReader {
 public:
  RecordReader(std::unique_ptr<std::istream> in, uint64_t size, std::string name)
      : in_(std::move(in)), size_(size), name_(std::move(name)) {}

  bool Next(std::string* out) {
    out->clear();
    const uint64_t start = pos_;
    for (int part = 0;; ++part) {
      if (pos_ == size_ && part == 0) return false;  // a clean end between records
      if (size_ - pos_ < 8)
        Fail(start, "a record header needs 8 bytes, " + std::to_string(size_ - pos_) + " left");
      uint32_t header[2];
      ReadExact(header, 8);
      if (header[0] != kMagic) Fail(start, "bad magic " + Hex(header[0]) + ", expected 0xced7230a");
      const uint32_t cflag = header[1] >> 29, len = header[1] & ((1u << 29) - 1);
      const bool first_part = cflag == 0 || cflag == 1;
      if (cflag > 3 || first_part != (part == 0))
        Fail(start, "part " + std::to_string(part) + " of a record has continuation flag " +
                        std::to_string(cflag));
      const uint64_t padded = (static_cast<uint64_t>(len) + 3) / 4 * 4;
      if (padded > size_ - pos_)
        Fail(start, "a record part of " + std::to_string(len) + " bytes, but the file has " +
                        std::to_string(size_ - pos_) + " left");
      const size_t old = out->size();
      out->resize(old + len);
      ReadExact(len ? &(*out)[old] : nullptr, len);
      char pad[4];
      ReadExact(pad, padded - len);
      if (cflag == 0 || cflag == 3) break;
      out->append(reinterpret_cast<const char*>(&kMagic), 4);  // the magic the writer split at
    }
    ++records_;
    return true;
  }

  void Seek(uint64_t offset) {
    SYMNET_CHECK(offset <= size_) << "RecordIO file '" << name_ << "': cannot seek to byte "
                                  << offset << ", the file has " << size_ << " bytes";
    in_->clear();
    in_->seekg(static_cast<std::streamoff>(offset));
    pos_ = offset;
    records_ = 0;
  }
  uint64_t Tell() const { return pos_; }

 private:
  static constexpr uint32_t kMagic = 0xced7230a;
  static std::string Hex(uint32_t v) {
    std::ostringstream os;
    os << "0x" << std::hex << v;
    return os.str();
  }
  void ReadExact(void* dst, uint64_t n) {
    if (n == 0) return;
    in_->read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    if (static_cast<uint64_t>(in_->gcount()) != n)
      Fail(pos_, "the file ended early (read error or changed while reading)");
    pos_ += n;
  }
  [[noreturn]] void Fail(uint64_t start, const std::string& why) const {
    SYMNET_THROW << "RecordIO file '" << name_ << "' is damaged at byte " << start << " (record "
                 << records_ << " after the last seek): " << why;
  }

  std::unique_ptr<std::istream> in_;
  uint64_t size_, pos_ = 0;
  std::string name_;
  size_t records_ = 0;  // records read since the last seek (for messages)
};

}  // namespace

struct RecordIOFile::Impl {
  std::unique_ptr<RecordReader> reader;
  std::unique_ptr<AtomicWriteStream> write_stream;
  std::unique_ptr<dmlc::RecordIOWriter> writer;
};

RecordIOFile::RecordIOFile(const std::string& path, char mode)
    : path_(path), mode_(mode), impl_(std::make_unique<Impl>()) {
  SYMNET_CHECK(mode == 'r' || mode == 'w')
      << "RecordIO mode must be 'r' or 'w', not '" << mode << "'";
  if (mode == 'r') {
    auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
    SYMNET_CHECK(in->good()) << "cannot open RecordIO file '" << path << "' for reading";
    in->seekg(0, std::ios::end);
    const std::streamoff size = in->tellg();
    SYMNET_CHECK(size >= 0) << "cannot read RecordIO file '" << path << "' (not a regular file?)";
    in->seekg(0);
    impl_->reader = std::make_unique<RecordReader>(std::move(in), size, path);
  } else {
    impl_->write_stream = std::make_unique<AtomicWriteStream>(path);
    impl_->writer = std::make_unique<dmlc::RecordIOWriter>(impl_->write_stream.get());
  }
}

std::unique_ptr<RecordIOFile> RecordIOFile::FromBytes(const std::string& bytes,
                                                      const std::string& name) {
  std::unique_ptr<RecordIOFile> f(new RecordIOFile(name));
  f->impl_->reader = std::make_unique<RecordReader>(std::make_unique<std::istringstream>(bytes),
                                                    bytes.size(), name);
  return f;
}

RecordIOFile::RecordIOFile(const std::string& name)
    : path_(name), mode_('r'), impl_(std::make_unique<Impl>()) {}

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
  return impl_->reader->Next(record);
}

void RecordIOFile::Seek(size_t offset) {
  if (impl_->reader) {
    impl_->reader->Seek(offset);
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

std::vector<size_t> ParseIndexFile(const std::string& text, const std::string& name) {
  std::istringstream f(text);
  std::vector<size_t> offsets;
  std::string line;
  size_t n = 0;
  while (std::getline(f, line)) {
    ++n;
    if (line.empty() || line == "\r") continue;
    std::istringstream in(line);
    // signed: ">>" into an unsigned type would wrap "-5" to a huge offset
    long long key, off;  // NOLINT(runtime/int)
    std::string rest;
    SYMNET_CHECK((in >> key >> off) && off >= 0 && !(in >> rest))
        << "index file '" << name << "' line " << n << " is not 'key<TAB>offset'";
    offsets.push_back(static_cast<size_t>(off));
  }
  return offsets;
}

std::vector<size_t> ReadIndexFile(const std::string& path) {
  return ParseIndexFile(ReadFile(path, "index file"), path);
}

}  // namespace symnet
