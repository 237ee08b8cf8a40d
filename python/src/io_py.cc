/*! \brief RecordIO, ImageRecordIter, image decoding and data-loading worker bindings. */
#include <omp.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "src/io/jpeg_codec.h"
#include "symnet/file_io.h"
#include "symnet/image_record_iter.h"
#include "symnet/recordio.h"

namespace symnet {
namespace python {

namespace {

/*! \brief An ImageRecordIter and the verbose messages it has logged. */
struct RecordIterHandle {
  std::shared_ptr<std::vector<std::string>> messages = std::make_shared<std::vector<std::string>>();
  std::shared_ptr<std::mutex> mu = std::make_shared<std::mutex>();
  std::unique_ptr<ImageRecordIter> it;
};

/*! \brief Decodes JPEG bytes to an (H, W, C) uint8 numpy array that owns the decoded pixels. */
py::array_t<uint8_t> DecodeImage(const py::buffer& buf, int flag, bool to_rgb) {
  const py::buffer_info info = buf.request();
  SYMNET_CHECK(info.ndim <= 1 && (info.ndim == 0 || info.strides[0] == info.itemsize))
      << "imdecode: the buffer must be contiguous bytes, not an array of " << info.ndim << " dims";
  std::string bytes(static_cast<const char*>(info.ptr),
                    static_cast<size_t>(info.size * info.itemsize));
  SYMNET_CHECK(flag == 0 || flag == 1)
      << "imdecode: flag must be 0 (grayscale) or 1 (colour), not " << flag;
  auto* pixels = new std::vector<uint8_t>();
  py::capsule owner(pixels, [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
  int height = 0, width = 0;
  const int channels = flag == 0 ? 1 : 3;
  std::string why;
  bool ok;
  {
    py::gil_scoped_release release;  // decoding threads (DataLoader thread_pool) run in parallel
    if (flag == 0) {
      ok = io::DecodeJPEGGray(bytes, &height, &width, pixels, &why);
    } else {
      io::Image img;
      ok = io::DecodeJPEG(bytes, &img, &why);
      height = img.height;
      width = img.width;
      *pixels = std::move(img.rgb);
      if (ok && !to_rgb) {  // OpenCV's channel order, as MXNet's imdecode(to_rgb=False) gives
        for (size_t i = 0; i + 2 < pixels->size(); i += 3)
          std::swap((*pixels)[i], (*pixels)[i + 2]);
      }
    }
  }
  SYMNET_CHECK(ok) << "imdecode: cannot decode the " << bytes.size() << "-byte image: " << why;
  const py::ssize_t h = height, w = width, c = channels;
  return py::array_t<uint8_t>({h, w, c}, {w * c, c, py::ssize_t{1}}, pixels->data(), owner);
}

}  // namespace

void InitIO(py::module_& m) {
  m.def("imdecode", &DecodeImage, py::arg("buf"), py::arg("flag") = 1, py::arg("to_rgb") = true);
  // A process forked from one that has run OpenMP regions inherits libgomp's thread pool without
  // its threads: its next parallel region waits for them forever. gluon's DataLoader workers
  // call this with 1 first (as MXNet's fork handler does), so regions there run on one thread.
  m.def(
      "set_omp_num_threads",
      [](int n) {
        const int old = omp_get_max_threads();
        omp_set_num_threads(n);
        return old;
      },
      py::arg("n"));
  py::class_<RecordIOFile>(m, "RecordIOFile")
      .def(py::init([](const std::string& path, const std::string& mode) {
        SYMNET_CHECK(mode == "r" || mode == "w")
            << "RecordIO flag must be 'r' or 'w', not '" << mode << "'";
        return std::make_unique<RecordIOFile>(path, mode[0]);
      }))
      .def("write", [](RecordIOFile& f, const py::bytes& b) { return f.Write(std::string(b)); })
      .def("read",
           [](RecordIOFile& f) -> py::object {
             std::string rec;
             if (!f.Read(&rec)) return py::none();
             return py::bytes(rec);
           })
      .def("seek", &RecordIOFile::Seek)
      .def("tell", &RecordIOFile::Tell)
      .def("reset", &RecordIOFile::Reset)
      .def("close", &RecordIOFile::Close)
      .def("abort", &RecordIOFile::Abort);
  // every file the Python side writes for the user goes through the C++ crash-safe writer
  m.def(
      "write_file_atomically",
      [](const std::string& path, const py::bytes& data) {
        std::string bytes = data;
        py::gil_scoped_release release;  // fsync may take a while
        WriteFileAtomically(path, bytes);
      },
      py::arg("path"), py::arg("data"));
  m.def("append_line", &AppendLine, py::arg("path"), py::arg("line"));
  m.def(
      "truncate_torn_last_line",
      [](const std::string& path) { return py::bytes(TruncateTornLastLine(path)); },
      py::arg("path"));
  m.def("pack_image_record", [](uint32_t flag, const std::vector<float>& labels, float label,
                                uint64_t id, uint64_t id2, const py::bytes& payload) {
    ImageRecordHeader h;
    h.flag = flag;
    h.label = label;
    h.labels = labels;
    h.id = id;
    h.id2 = id2;
    return py::bytes(PackImageRecord(h, std::string(payload)));
  });
  m.def("unpack_image_record", [](const py::bytes& rec) {
    ImageRecordHeader h;
    std::string payload;
    UnpackImageRecord(std::string(rec), &h, &payload);
    return py::make_tuple(h.flag, h.label, h.labels, h.id, h.id2, py::bytes(payload));
  });

  // ImageRecordIter takes its options as strings, as MXNet's iterator does (the Python wrapper
  // formats them); verbose messages are kept for the wrapper to log (they may come from the
  // constructor while it runs without the GIL)
  py::class_<RecordIterHandle>(m, "ImageRecordIter")
      .def(py::init([](const std::map<std::string, std::string>& kwargs) {
        auto h = std::make_unique<RecordIterHandle>();
        ImageRecordIterParams p = ImageRecordIterParams::FromStrings(kwargs);
        auto messages = h->messages;
        auto mu = h->mu;
        p.log = [messages, mu](const std::string& msg) {
          std::lock_guard<std::mutex> lock(*mu);
          messages->push_back(msg);
        };
        {
          py::gil_scoped_release release;  // a mean image may take a pass over the data
          h->it = std::make_unique<ImageRecordIter>(p);
        }
        return h;
      }))
      .def("next",
           [](RecordIterHandle& h) -> py::object {
             ImageBatch b;
             bool ok;
             {
               py::gil_scoped_release release;
               ok = h.it->Next(&b);
             }
             if (!ok) return py::none();
             return py::make_tuple(b.data, b.label, b.pad, b.ids);
           })
      .def("reset",
           [](RecordIterHandle& h) {
             py::gil_scoped_release release;
             h.it->Reset();
           })
      .def("set_epoch",
           [](RecordIterHandle& h, int e) {
             py::gil_scoped_release release;
             h.it->SetEpoch(e);
           })
      .def("num_records", [](RecordIterHandle& h) { return h.it->num_records(); })
      .def("num_skipped", [](RecordIterHandle& h) { return h.it->num_skipped(); })
      .def("num_prefetched", [](RecordIterHandle& h) { return h.it->num_prefetched(); })
      .def("num_threads", [](RecordIterHandle& h) { return h.it->num_threads(); })
      .def("take_messages", [](RecordIterHandle& h) {
        std::lock_guard<std::mutex> lock(*h.mu);
        std::vector<std::string> out;
        out.swap(*h.messages);
        return out;
      });
  m.def("image_record_iter_options", &ImageRecordIterParams::OptionNames);
}

}  // namespace python
}  // namespace symnet
