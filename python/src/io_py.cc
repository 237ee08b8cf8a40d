/*! \brief RecordIO, ImageRecordIter, image decoding and data-loading worker bindings. */
#include <omp.h>

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

  py::class_<ImageRecordIter>(m, "ImageRecordIter")
      .def(py::init([](const py::dict& kw) {
        ImageRecordIterParams p;
        for (const auto& item : kw) {
          const std::string k = item.first.cast<std::string>();
          const py::handle v = item.second;
          if (k == "path_imgrec")
            p.path_imgrec = v.cast<std::string>();
          else if (k == "path_imgidx")
            p.path_imgidx = v.cast<std::string>();
          else if (k == "data_shape")
            p.data_shape = ShapeFromPy(v);
          else if (k == "batch_size")
            p.batch_size = v.cast<int>();
          else if (k == "label_width")
            p.label_width = v.cast<int>();
          else if (k == "shuffle")
            p.shuffle = v.cast<bool>();
          else if (k == "seed")
            p.seed = v.cast<uint64_t>();
          else if (k == "num_parts")
            p.num_parts = v.cast<int>();
          else if (k == "part_index")
            p.part_index = v.cast<int>();
          else if (k == "preprocess_threads")
            p.preprocess_threads = v.cast<int>();
          else if (k == "prefetch_buffer")
            p.prefetch_buffer = v.cast<int>();
          else if (k == "resize")
            p.resize = v.cast<int>();
          else if (k == "rand_crop")
            p.rand_crop = v.cast<bool>();
          else if (k == "random_resized_crop")
            p.random_resized_crop = v.cast<bool>();
          else if (k == "min_random_area")
            p.min_random_area = v.cast<float>();
          else if (k == "max_random_area")
            p.max_random_area = v.cast<float>();
          else if (k == "min_aspect_ratio")
            p.min_aspect_ratio = v.cast<float>();
          else if (k == "max_aspect_ratio")
            p.max_aspect_ratio = v.cast<float>();
          else if (k == "rand_mirror")
            p.rand_mirror = v.cast<bool>();
          else if (k == "mean_r")
            p.mean_r = v.cast<float>();
          else if (k == "mean_g")
            p.mean_g = v.cast<float>();
          else if (k == "mean_b")
            p.mean_b = v.cast<float>();
          else if (k == "std_r")
            p.std_r = v.cast<float>();
          else if (k == "std_g")
            p.std_g = v.cast<float>();
          else if (k == "std_b")
            p.std_b = v.cast<float>();
          else if (k == "scale")
            p.scale = v.cast<float>();
          else if (k == "dtype")
            p.dtype = DTypeFromName(v.cast<std::string>());
          else if (k == "round_batch")
            p.round_batch = v.cast<bool>();
          else if (k == "skip_bad")
            p.skip_bad = v.cast<bool>();
          else
            SYMNET_THROW << "ImageRecordIter: unknown argument '" << k << "'";
        }
        return std::make_unique<ImageRecordIter>(p);
      }))
      .def("next",
           [](ImageRecordIter& it) -> py::object {
             ImageBatch b;
             bool ok;
             {
               py::gil_scoped_release release;
               ok = it.Next(&b);
             }
             if (!ok) return py::none();
             return py::make_tuple(b.data, b.label, b.pad, b.ids);
           })
      .def("reset",
           [](ImageRecordIter& it) {
             py::gil_scoped_release release;
             it.Reset();
           })
      .def("set_epoch",
           [](ImageRecordIter& it, int e) {
             py::gil_scoped_release release;
             it.SetEpoch(e);
           })
      .def("num_records", &ImageRecordIter::num_records)
      .def("num_skipped", &ImageRecordIter::num_skipped);
}

}  // namespace python
}  // namespace symnet
