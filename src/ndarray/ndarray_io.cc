/*! \brief MXNet .params reading and writing with bounds-checked parsing. */
#include "symnet/ndarray_io.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "symnet/file_io.h"

namespace symnet {

namespace {

constexpr uint64_t kListMagic = 0x112;
constexpr uint32_t kV1Magic = 0xF993fac8;
constexpr uint32_t kV2Magic = 0xF993fac9;
constexpr uint32_t kV3Magic = 0xF993faca;
constexpr int kMaxNDim = 32;

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void Bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& data, const std::string& what) : data_(data), what_(what) {}
  template <typename T>
  T Get(const char* field) {
    T v;
    Need(sizeof(T), field);
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  const char* Take(size_t n, const char* field) {
    Need(n, field);
    const char* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }
  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  [[noreturn]] void Fail(const std::string& msg) const {
    SYMNET_THROW << what_ << ": " << msg << " (at byte " << pos_ << " of " << data_.size() << ")";
  }

 private:
  void Need(size_t n, const char* field) const {
    if (n > data_.size() - pos_)
      Fail(std::string("truncated: needs ") + std::to_string(n) + " bytes for " + field + ", " +
           std::to_string(data_.size() - pos_) + " left");
  }
  const std::string& data_;
  std::string what_;
  size_t pos_ = 0;
};

/*! \brief `v3`: MXNet's numpy-shape layout, needed by a 0-d array (V2 reads ndim 0 as the none
 *  array, which would lose its value). MXNet takes one layout per file (it loads a V3 file in
 *  numpy-shape mode only, and refuses a file that mixes both), so when one array needs V3 the
 *  whole file is V3; there the none array has ndim -1. */
void WriteArray(Writer* w, const NDArray& a, bool v3) {
  const Shape& s = a.shape();
  w->Put<uint32_t>(v3 ? kV3Magic : kV2Magic);
  w->Put<int32_t>(0);  // dense storage
  if (a.is_none()) {
    w->Put<int32_t>(v3 ? -1 : 0);  // the none array: unknown shape (V3), ndim 0 (V2)
    return;
  }
  w->Put<int32_t>(s.ndim());
  for (auto d : s) w->Put<int64_t>(d);
  w->Put<int32_t>(Device::kCPU);  // saved data is always host data
  w->Put<int32_t>(0);
  w->Put<int32_t>(static_cast<int32_t>(a.dtype()));
  if (a.device().type == Device::kGPU) {  // copy GPU data to the host first
    NDArray host(a.shape(), Device::CPU(), a.dtype());
    host.CopyFrom(a);
    w->Bytes(host.read_ptr(), host.Bytes());
    return;
  }
  w->Bytes(a.read_ptr(), a.Bytes());
}

Shape ReadShape(Reader* r, bool int64_dims, int32_t ndim) {
  if (ndim < 0 || ndim > kMaxNDim)
    r->Fail("shape has " + std::to_string(ndim) + " dimensions; expected 0 to " +
            std::to_string(kMaxNDim));
  Shape s = Shape::Scalar();
  for (int32_t i = 0; i < ndim; ++i) {
    const int64_t d = int64_dims ? r->Get<int64_t>("a dimension") : r->Get<uint32_t>("a dimension");
    if (d < 0) r->Fail("negative dimension " + std::to_string(d));
    s.push_back(d);
  }
  return s;
}

NDArray ReadData(Reader* r, const Shape& s) {
  const int32_t dev_type = r->Get<int32_t>("device type");
  r->Get<int32_t>("device id");
  // MXNet's nd.save writes cpu_shared arrays with their type (5); all load on the CPU below
  if (dev_type != Device::kCPU && dev_type != Device::kGPU && dev_type != Device::kCPUPinned &&
      dev_type != Device::kCPUShared)
    r->Fail("unknown device type " + std::to_string(dev_type));
  const int32_t flag = r->Get<int32_t>("dtype flag");
  if (!IsValidDTypeFlag(flag)) r->Fail("unknown dtype flag " + std::to_string(flag));
  const DType t = static_cast<DType>(flag);
  // compare element counts with what is left before multiplying, so huge dims cannot overflow
  const size_t esize = DTypeSize(t);
  size_t count = 1;
  for (auto d : s) {
    if (d != 0 && count > r->remaining() / esize / static_cast<size_t>(d))
      r->Fail("array of shape " + s.ToString() + " is larger than the rest of the file");
    count *= static_cast<size_t>(d);
  }
  const char* p = r->Take(count * esize, "array data");
  NDArray a(s, Device::CPU(), t);  // arrays load on the CPU (as MXNet without a GPU)
  if (count) std::memcpy(a.dptr(), p, count * esize);
  return a;
}

/*! \brief MXNet's check of an array's layout against the load's shape semantics (its messages:
 *  a file saved under np_shape reads zero dims as zero-size, one saved without as unknown). */
void CheckSemantics(Reader* r, uint32_t magic, LoadShapeSemantics semantics) {
  if (magic == kV3Magic && semantics == LoadShapeSemantics::kLegacy)
    r->Fail(
        "ndarray was saved in np shape semantics, must be loaded in the same semantics. Please "
        "turn on np shape semantics in Python using `with np_shape(True)` or decorator "
        "`use_np_shape` to scope the code of loading the ndarray.");
  if (magic == kV2Magic && semantics == LoadShapeSemantics::kNumpyThread)
    r->Fail(
        "ndarray was not saved in np shape semantics, but being loaded in np shape semantics. "
        "Please turn off np shape semantics in Python using `with np_shape(False)` to scope the "
        "code of loading the ndarray.");
}

NDArray ReadArray(Reader* r, LoadShapeSemantics semantics) {
  const uint32_t magic = r->Get<uint32_t>("array magic");
  if (magic == kV2Magic || magic == kV3Magic) {
    CheckSemantics(r, magic, semantics);
    const int32_t stype = r->Get<int32_t>("storage type");
    if (stype != 0)
      r->Fail("storage type " + std::to_string(stype) +
              " (sparse) is not supported; save dense arrays (tostype('default') in MXNet)");
    const int32_t ndim = r->Get<int32_t>("ndim");
    if (ndim == -1 && magic == kV3Magic) return NDArray();  // numpy-shape layout's none array
    const Shape s = ReadShape(r, true, ndim);
    if (s.ndim() == 0 && magic == kV2Magic) return NDArray();  // MXNet's none array
    return ReadData(r, s);
  }
  if (magic == kV1Magic) {
    const Shape s = ReadShape(r, true, r->Get<int32_t>("ndim"));
    if (s.ndim() == 0) return NDArray();
    return ReadData(r, s);
  }
  // the oldest layout has no magic: the word read is ndim, followed by uint32 dims
  if (magic > static_cast<uint32_t>(kMaxNDim))
    r->Fail("unknown array magic 0x" + [&] {
      std::ostringstream os;
      os << std::hex << magic;
      return os.str();
    }() + " (not an MXNet NDArray)");
  const Shape s = ReadShape(r, false, static_cast<int32_t>(magic));
  if (s.ndim() == 0) return NDArray();
  return ReadData(r, s);
}

}  // namespace

std::string SaveNDArrayList(const std::vector<NDArray>& arrays,
                            const std::vector<std::string>& names, bool numpy_shape) {
  SYMNET_CHECK(names.empty() || names.size() == arrays.size())
      << "save: " << names.size() << " names for " << arrays.size() << " arrays";
  Writer w;
  w.Put<uint64_t>(kListMagic);
  w.Put<uint64_t>(0);
  w.Put<uint64_t>(arrays.size());
  const bool v3 = numpy_shape || std::any_of(arrays.begin(), arrays.end(), [](const NDArray& a) {
                    return !a.is_none() && a.shape().ndim() == 0;
                  });
  for (const auto& a : arrays) WriteArray(&w, a, v3);
  w.Put<uint64_t>(names.size());
  for (const auto& n : names) {
    w.Put<uint64_t>(n.size());
    w.Bytes(n.data(), n.size());
  }
  return w.Take();
}

void LoadNDArrayList(const std::string& bytes, std::vector<NDArray>* arrays,
                     std::vector<std::string>* names, const std::string& what,
                     LoadShapeSemantics semantics) {
  Reader r(bytes, what);
  const uint64_t magic = r.Get<uint64_t>("list magic");
  if (magic != kListMagic) r.Fail("not an MXNet NDArray file (list magic is not 0x112)");
  r.Get<uint64_t>("reserved word");
  const uint64_t n = r.Get<uint64_t>("array count");
  // every array takes at least 8 bytes: a count beyond that is damage, not a big file
  if (n > r.remaining() / 8)
    r.Fail("array count " + std::to_string(n) + " is impossible for this file");
  arrays->clear();
  for (uint64_t i = 0; i < n; ++i) arrays->push_back(ReadArray(&r, semantics));
  names->clear();
  const uint64_t k = r.Get<uint64_t>("name count");
  if (k != 0 && k != n) r.Fail(std::to_string(k) + " names for " + std::to_string(n) + " arrays");
  for (uint64_t i = 0; i < k; ++i) {
    const uint64_t len = r.Get<uint64_t>("name length");
    if (len > r.remaining()) r.Fail("name length " + std::to_string(len) + " exceeds the file");
    names->emplace_back(r.Take(len, "name"), len);
    if (FindInvalidUtf8(names->back()) != std::string::npos)
      r.Fail("the name of array " + std::to_string(i) + " is not valid UTF-8");
  }
  if (r.remaining() != 0)
    r.Fail(std::to_string(r.remaining()) + " unexpected bytes after the names");
}

void SaveNDArrays(const std::string& path, const std::vector<NDArray>& arrays,
                  const std::vector<std::string>& names, bool numpy_shape) {
  // temporary file, fsync, rename: a crash or a failed save leaves the previous file intact
  WriteFileAtomically(path, SaveNDArrayList(arrays, names, numpy_shape));
}

void LoadNDArrays(const std::string& path, std::vector<NDArray>* arrays,
                  std::vector<std::string>* names, LoadShapeSemantics semantics) {
  LoadNDArrayList(ReadFile(path, "NDArray file"), arrays, names, path, semantics);
}

}  // namespace symnet
