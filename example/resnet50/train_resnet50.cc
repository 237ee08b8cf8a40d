/*!
 * \brief train_resnet50: the C++ twin of example/resnet50/train.py (same options, same files).
 *
 *   train_resnet50                        # built-in digits .rec data, ResNet-50 v1.5, --amp auto
 *   train_resnet50 --amp none             # float32
 *   train_resnet50 --resume --num-epochs 5
 *   train_resnet50 --benchmark --image-shape 3,224,224
 *   train_resnet50 --data-train train.rec --data-val val.rec --num-classes 1000 --image-shape
 * 3,224,224
 *   mpirun --allow-run-as-root --oversubscribe -np 2 train_resnet50 --kv-store dist_sync
 *
 * Checkpoints (prefix-symbol.json, prefix-%04d.params, prefix-%04d.states) and the JSON-lines log
 * are the Python Module's formats: either program resumes the other's run, and
 * symnet.viz.plot_training draws the log. The built-in data set is written by
 * example/resnet50/digits_data.py (the Python script builds it on its first run; this program
 * runs it when the files are missing). With --kv-store dist_sync under mpirun each rank reads its
 * part of the data, the gradients are summed over the ranks, and rank 0 prints, logs and writes
 * the checkpoints (docs/distributed.md).
 */
#include <sys/resource.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "symnet/symnet.h"

namespace po = boost::program_options;
using namespace symnet;  // NOLINT: an example reads better without prefixes

#ifndef SYMNET_SOURCE_DIR
#define SYMNET_SOURCE_DIR "."
#endif

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Args {
  std::string network, version, amp, image_shape_text, data_train, data_val, lr_schedule,
      lr_step_epochs;
  std::string work_dir, model_prefix, log, run, kv_store;
  int num_layers = 50, batch_size = 0, num_classes = 0, num_epochs = 6, num_iters = 0,
      disp_batches = 10;
  int data_nthreads = 2;
  double lr = 0.05, lr_factor = 0.1, warmup_epochs = 0.5, wd = 5e-5, mom = 0.9, label_smoothing = 0;
  bool synthetic = false, resume = false, benchmark = false, compare = false, no_zero_gamma = false;
  uint64_t seed = 0;
  Shape image_shape;
  bool builtin = false;
  int rank = 0, ranks = 1;  // this process in a distributed job (--kv-store dist_sync)
};

/*! \brief The smallest of every rank's `v` (each rank must run as many steps). */
int64_t MinOverRanks(int64_t v, const Args& a) {
  if (a.ranks == 1) return v;
  std::vector<double> all(static_cast<size_t>(a.ranks), 0.0);
  all[static_cast<size_t>(a.rank)] = static_cast<double>(v);
  dist::AllReduceSum(all.data(), all.size(), "the ranks' batch counts");
  return static_cast<int64_t>(*std::min_element(all.begin(), all.end()));
}

bool FileExists(const std::string& p) { return std::ifstream(p).good(); }

Shape ParseShape(const std::string& text) {
  Shape s;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) s.push_back(std::stoll(item));
  SYMNET_CHECK(s.ndim() == 3) << "--image-shape must be C,H,W, got '" << text << "'";
  return s;
}

/*! \brief Random data for --synthetic / --benchmark (fixed per seed). */
struct SyntheticData {
  NDArray data, label;
  SyntheticData(const Args& a) {
    std::mt19937 rng(static_cast<unsigned>(a.seed + a.rank));  // each rank its own batch
    std::normal_distribution<float> normal;
    Shape ds{a.batch_size};
    for (int i = 0; i < 3; ++i) ds.push_back(a.image_shape[i]);
    std::vector<float> d(static_cast<size_t>(ds.Size())), l(static_cast<size_t>(a.batch_size));
    for (auto& x : d) x = normal(rng);
    for (auto& x : l) x = static_cast<float>(rng() % a.num_classes);
    data = NDArray::FromBuffer(d.data(), ds, DType::kFloat32, DType::kFloat32);
    label = NDArray::FromBuffer(l.data(), Shape{a.batch_size}, DType::kFloat32, DType::kFloat32);
  }
};

ImageRecordIterParams IterParams(const Args& a, const std::string& rec) {
  ImageRecordIterParams p;
  p.path_imgrec = rec;
  p.data_shape = a.image_shape;
  p.batch_size = a.batch_size;
  p.preprocess_threads = a.data_nthreads;
  // ImageNet's per-channel statistics (RGB), as the Python script uses them
  p.mean_r = 123.68f, p.mean_g = 116.779f, p.mean_b = 103.939f;
  p.std_r = 58.393f, p.std_g = 57.12f, p.std_b = 57.375f;
  p.seed = a.seed;
  p.num_parts = a.ranks;  // rank r reads the r-th of `ranks` contiguous parts (as MXNet)
  p.part_index = a.rank;
  return p;
}

std::unique_ptr<train::Trainer> MakeTrainer(const Args& a, int64_t batches_per_epoch) {
  models::ResNetOptions ro;
  ro.num_layers = a.num_layers;
  ro.version = a.version;
  ro.num_classes = a.num_classes;
  ro.image_shape = a.image_shape;
  ro.zero_init_last_gamma = !a.no_zero_gamma;
  ro.label_smoothing = a.label_smoothing;
  train::TrainerOptions to;
  Shape ds{a.batch_size};
  for (int i = 0; i < 3; ++i) ds.push_back(a.image_shape[i]);
  to.input_shapes = {{"data", ds}, {"softmax_label", Shape{a.batch_size}}};
  to.amp = a.amp == "none" ? "" : a.amp;
  to.kvstore = a.kv_store;
  to.momentum = a.mom;
  to.wd = a.wd;
  to.lr.base_lr = a.lr;
  to.lr.warmup_steps = static_cast<int64_t>(a.warmup_epochs * batches_per_epoch);
  if (a.lr_schedule == "cosine") {
    to.lr.kind = train::LRScheduler::kCosine;
    to.lr.max_update = std::max<int64_t>(a.num_epochs * batches_per_epoch, to.lr.warmup_steps + 1);
  } else {
    to.lr.kind = train::LRScheduler::kMultiFactor;
    to.lr.factor = a.lr_factor;
    std::stringstream ss(a.lr_step_epochs);
    std::string e;
    while (std::getline(ss, e, ',')) to.lr.steps.push_back(std::stoll(e) * batches_per_epoch);
  }
  return std::unique_ptr<train::Trainer>(new train::Trainer(models::ResNet(ro), to));
}

double PeakRssMB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

void Benchmark(const Args& a) {
  auto tr = MakeTrainer(a, 1);
  tr->InitParams(a.seed);
  SyntheticData syn(a);
  const int steps = a.num_iters > 0 ? a.num_iters : 10, warmup = 2;
  std::vector<double> times;
  for (int i = 0; i < warmup + steps; ++i) {
    const auto t0 = Clock::now();
    tr->Step({syn.data, syn.label});
    if (i >= warmup) times.push_back(Seconds(t0, Clock::now()));
  }
  std::sort(times.begin(), times.end());
  const double med = times[times.size() / 2];
  char ranks[96] = "";
  if (a.ranks > 1)
    std::snprintf(ranks, sizeof(ranks), ", %d ranks (%.2f img/s in all)", a.ranks,
                  a.ranks * a.batch_size / med);
  std::printf(
      "benchmark (C++): resnet-%d v%s %s, batch %d, %lldx%lldx%lld: %.2f img/s (median of %d "
      "steps, "
      "%.1f ms/step; %d warm-up steps excluded), activation arena %.1f MB%s\n",
      a.num_layers, a.version.c_str(), a.run.c_str(), a.batch_size, (long long)a.image_shape[0],
      (long long)a.image_shape[1], (long long)a.image_shape[2], a.batch_size / med, steps,
      med * 1e3, warmup, tr->executor().memory_report().arena_bytes / 1048576.0, ranks);
}

struct Summary {
  std::string run;
  double img_per_s = 0, val_accuracy = -1, arena_mb = 0, peak_rss_mb = 0, seconds = 0;
};

/*! \brief Validation accuracy over a .rec file (padding excluded; every rank's part). */
double Evaluate(train::Trainer* tr, ImageRecordIter* val, train::Metrics* m) {
  m->Reset();
  val->Reset();
  ImageBatch b;
  while (val->Next(&b)) {
    const auto& out = tr->Predict({b.data});
    m->Update(out[0], b.label, b.data.shape()[0] - b.pad);
  }
  m->SumOverRanks();
  return m->accuracy();
}

Summary Train(const Args& a) {
  const auto t_start = Clock::now();
  const std::string run_dir = a.work_dir + "/" + a.run;
  std::string cmd = "mkdir -p '" + run_dir + "'";
  SYMNET_CHECK(std::system(cmd.c_str()) == 0) << "cannot create " << run_dir;
  const std::string prefix =
      a.model_prefix.empty() ? run_dir + "/resnet" + std::to_string(a.num_layers) : a.model_prefix;
  const std::string log_path = a.log.empty() ? a.work_dir + "/" + a.run + ".cpp.jsonl" : a.log;

  std::unique_ptr<ImageRecordIter> train_it, val_it;
  std::unique_ptr<SyntheticData> syn;
  std::string source;
  int64_t num_images;
  if (a.synthetic) {
    syn.reset(new SyntheticData(a));
    num_images = static_cast<int64_t>(a.num_iters > 0 ? a.num_iters : 20) * a.batch_size;
    source = "synthetic";
  } else {
    std::string train_rec = a.data_train, val_rec = a.data_val;
    if (a.builtin) {
      const std::string dir = a.work_dir + "/data";
      const std::string tag = dir + "/digits_" + std::to_string(a.image_shape[1]);
      train_rec = tag + "_train.rec";
      val_rec = tag + "_val.rec";
      if (a.rank != 0) dist::Barrier();  // rank 0 writes the data set, the others then read it
      if (a.rank == 0 && (!FileExists(train_rec) || !FileExists(val_rec))) {
        const std::string build = "python3 '" SYMNET_SOURCE_DIR
                                  "/example/resnet50/digits_data.py' '" +
                                  dir + "' " + std::to_string(a.image_shape[1]);
        std::printf("building the digits data set: %s\n", build.c_str());
        SYMNET_CHECK(std::system(build.c_str()) == 0)
            << "could not build the built-in data set (needs python3 with symnet, scikit-learn and "
               "pillow); or pass --data-train/--data-val";
      }
      if (a.rank == 0 && a.ranks > 1) dist::Barrier();
      source = "digits (built-in)";
    } else {
      source = train_rec;
    }
    ImageRecordIterParams tp = IterParams(a, train_rec);
    tp.shuffle = true;
    if (!a.builtin) {  // 8% to 100% of the area, aspect 3/4 to 4/3 (the defaults are MXNet's: 1, 1)
      tp.random_resized_crop = tp.rand_mirror = true;
      tp.min_random_area = 0.08f;
      tp.min_aspect_ratio = 3.0f / 4;
      tp.max_aspect_ratio = 4.0f / 3;
    }
    train_it.reset(new ImageRecordIter(tp));
    if (!val_rec.empty()) {
      ImageRecordIterParams vp = IterParams(a, val_rec);
      if (!a.builtin) vp.resize = static_cast<int>(a.image_shape[1] * 256 / 224);
      val_it.reset(new ImageRecordIter(vp));
    }
    num_images = static_cast<int64_t>(train_it->num_records());
  }
  int64_t batches_per_epoch = MinOverRanks((num_images + a.batch_size - 1) / a.batch_size, a);
  if (a.num_iters > 0) batches_per_epoch = std::min<int64_t>(batches_per_epoch, a.num_iters);

  auto tr = MakeTrainer(a, batches_per_epoch);
  int begin_epoch = 0;
  if (a.resume) {
    begin_epoch = train::LatestCheckpoint(prefix, true);
    SYMNET_CHECK(begin_epoch > 0) << "--resume: no checkpoint with optimizer state matches "
                                  << prefix << "-NNNN.params";
    std::printf("resuming from %s-%04d.params (optimizer and loss-scaler state included)\n",
                prefix.c_str(), begin_epoch);
    tr->LoadCheckpoint(prefix, begin_epoch, true);
  } else {
    tr->InitParams(a.seed);
  }
  std::printf(
      "training resnet-%d v%s (%s, C++) on %s: %lld images/epoch, batch %d, epochs %d..%d\n",
      a.num_layers, a.version.c_str(), a.run.c_str(), source.c_str(),
      (long long)(batches_per_epoch * a.batch_size), a.batch_size, begin_epoch + 1, a.num_epochs);
  // one line per record, each appended with a single write: a killed run leaves whole lines and
  // at most one torn last line, which a resumed run cuts off before appending
  const bool lead = a.rank == 0;  // rank 0 writes the log
  if (a.resume && lead) {
    const std::string torn = TruncateTornLastLine(log_path);
    if (!torn.empty())
      std::fprintf(stderr, "warning: %s: ignoring a torn last line left by an interrupted run\n",
                   log_path.c_str());
  } else if (lead) {
    WriteFileAtomically(log_path, "");
  }

  train::Metrics window, epoch_m, batch_m;
  double timed_images = 0, timed_seconds = 0;
  for (int epoch = begin_epoch; epoch < a.num_epochs; ++epoch) {
    if (train_it) {
      train_it->SetEpoch(epoch);
    }
    epoch_m.Reset();
    window.Reset();
    auto t_epoch = Clock::now(), t_window = Clock::now(), t_batch = Clock::now();
    ImageBatch b;
    for (int64_t nbatch = 1; nbatch <= batches_per_epoch; ++nbatch) {
      NDArray data, label;
      int64_t valid = a.batch_size;
      if (syn) {
        data = syn->data, label = syn->label;
      } else {
        if (!train_it->Next(&b)) break;
        data = b.data, label = b.label, valid = a.batch_size - b.pad;
      }
      const double scale_before = tr->loss_scale();
      tr->Step({data, label});
      const auto& out = tr->outputs()[0];
      batch_m.Reset();
      batch_m.Update(out, label, valid);
      epoch_m.Update(out, label, valid);
      window.Update(out, label, valid);
      const auto now = Clock::now();
      const double dt = Seconds(t_batch, now);
      t_batch = now;
      if (nbatch > 1) timed_images += a.batch_size, timed_seconds += dt;  // first batch: set-up
      char rec[512];
      std::snprintf(rec, sizeof(rec),
                    "{\"run\": \"%s\", \"epoch\": %d, \"batch\": %lld, \"img_per_s\": %.3f, "
                    "\"accuracy\": %.6f, "
                    "\"cross-entropy\": %.6f, \"loss_scale\": %g, \"lr\": %.6g}",
                    a.run.c_str(), epoch, (long long)nbatch, a.batch_size / std::max(dt, 1e-9),
                    batch_m.accuracy(), batch_m.cross_entropy(), scale_before, tr->current_lr());
      if (lead) AppendLine(log_path, rec);
      if (nbatch % a.disp_batches == 0) {
        const double speed = a.disp_batches * a.batch_size / Seconds(t_window, now);
        std::printf(
            "Epoch[%d] Batch [%lld]\tSpeed: %.2f "
            "samples/sec\taccuracy=%f\tcross-entropy=%f\tloss_scale=%g\n",
            epoch, (long long)nbatch, speed, window.accuracy(), window.cross_entropy(),
            tr->loss_scale());
        std::fflush(stdout);
        window.Reset();
        t_window = now;
      }
    }
    if (train_it) train_it->Reset();
    epoch_m.SumOverRanks();
    std::printf(
        "Epoch[%d] Train-accuracy=%f\nEpoch[%d] Train-cross-entropy=%f\nEpoch[%d] Time cost=%.3f\n",
        epoch, epoch_m.accuracy(), epoch, epoch_m.cross_entropy(), epoch,
        Seconds(t_epoch, Clock::now()));
    tr->SaveCheckpoint(prefix, epoch + 1, true);
    if (val_it) {
      train::Metrics vm;
      Evaluate(tr.get(), val_it.get(), &vm);
      std::printf("Epoch[%d] Validation-accuracy=%f\nEpoch[%d] Validation-cross-entropy=%f\n",
                  epoch, vm.accuracy(), epoch, vm.cross_entropy());
      std::ostringstream val;
      val << "{\"run\": \"" << a.run << "\", \"epoch\": " << epoch
          << ", \"batch\": " << batches_per_epoch << ", \"val_accuracy\": " << vm.accuracy()
          << ", \"val_cross-entropy\": " << vm.cross_entropy() << "}";
      if (lead) AppendLine(log_path, val.str());
    }
    std::fflush(stdout);
  }
  Summary s;
  s.run = a.run;
  s.img_per_s = timed_seconds > 0 ? a.ranks * timed_images / timed_seconds : NAN;  // all ranks
  if (val_it) {
    train::Metrics vm;
    s.val_accuracy = Evaluate(tr.get(), val_it.get(), &vm);
  }
  s.arena_mb = tr->executor().memory_report().arena_bytes / 1048576.0;
  s.peak_rss_mb = PeakRssMB();
  s.seconds = Seconds(t_start, Clock::now());
  char acc[64] = "n/a";
  if (s.val_accuracy >= 0)
    std::snprintf(acc, sizeof(acc), "%.3f (chance %.3f)", s.val_accuracy, 1.0 / a.num_classes);
  std::printf(
      "SUMMARY resnet-%d v%s %s (C++): %d epochs in %.0f s, %.1f img/s, loss scale %g (%lld "
      "skipped steps), "
      "validation accuracy %s; checkpoint %s-%04d.params, log %s\n",
      a.num_layers, a.version.c_str(), a.run.c_str(), a.num_epochs, s.seconds, s.img_per_s,
      tr->loss_scale(), (long long)tr->num_skipped(), acc, prefix.c_str(), a.num_epochs,
      log_path.c_str());
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  po::options_description desc(
      "train_resnet50: ResNet training with symnet (C++); options as example/resnet50/train.py");
  desc.add_options()("help,h", "this help")(
      "network", po::value(&a.network)->default_value("resnet"), "network family (resnet)")(
      "num-layers", po::value(&a.num_layers)->default_value(50), "18, 34, 50, 101, 152")(
      "version", po::value(&a.version)->default_value("1.5"), "1 or 1.5")(
      "amp", po::value(&a.amp)->default_value("auto"),
      "auto (what the CPU or GPU runs natively), bfloat16, float16 or none (float32)")(
      "batch-size", po::value(&a.batch_size)->default_value(0),
      "batch size (0: 16 on the built-in data, else 32)")(
      "image-shape", po::value(&a.image_shape_text),
      "C,H,W (default 3,24,24 on the built-in data, else 3,224,224)")(
      "num-classes", po::value(&a.num_classes), "default 10 on the built-in data, else 1000")(
      "data-train", po::value(&a.data_train), ".rec of training images (default: built-in digits)")(
      "data-val", po::value(&a.data_val), ".rec of validation images")(
      "synthetic", po::bool_switch(&a.synthetic), "train on random data")(
      "num-epochs", po::value(&a.num_epochs)->default_value(6), "epochs")(
      "num-iters", po::value(&a.num_iters)->default_value(0),
      "end each epoch after this many batches "
      "(with --benchmark: timed steps)")("lr", po::value(&a.lr)->default_value(0.05),
                                         "base learning rate")(
      "lr-schedule", po::value(&a.lr_schedule)->default_value("cosine"), "step or cosine")(
      "lr-step-epochs", po::value(&a.lr_step_epochs)->default_value("30,60,80"),
      "epochs where step lowers the lr")("lr-factor", po::value(&a.lr_factor)->default_value(0.1),
                                         "step factor")(
      "warmup-epochs", po::value(&a.warmup_epochs)->default_value(0.5), "linear warmup")(
      "wd", po::value(&a.wd)->default_value(5e-5), "weight decay (weights and gammas)")(
      "mom", po::value(&a.mom)->default_value(0.9), "momentum")(
      "label-smoothing", po::value(&a.label_smoothing)->default_value(0.0),
      "SoftmaxOutput smooth_alpha")("no-zero-gamma", po::bool_switch(&a.no_zero_gamma),
                                    "all BatchNorm gammas start at 1")(
      "work-dir",
      po::value(&a.work_dir)->default_value(SYMNET_SOURCE_DIR "/build/resnet50_example"),
      "data, checkpoints, logs")("model-prefix", po::value(&a.model_prefix),
                                 "checkpoint prefix (default WORK_DIR/<run>/resnet<layers>)")(
      "resume", po::bool_switch(&a.resume), "continue from the newest checkpoint")(
      "benchmark", po::bool_switch(&a.benchmark),
      "synthetic data, time --num-iters steps after warm-up")(
      "compare", po::bool_switch(&a.compare), "train float32, then AMP, and print a table")(
      "seed", po::value(&a.seed)->default_value(0), "random seed")(
      "log", po::value(&a.log), "JSON-lines log (default WORK_DIR/<run>.cpp.jsonl)")(
      "disp-batches", po::value(&a.disp_batches)->default_value(10), "log every N batches")(
      "data-nthreads", po::value(&a.data_nthreads)->default_value(2), "decoding threads")(
      "kv-store", po::value(&a.kv_store)->default_value("local"),
      "local, or dist_sync for a job of several ranks started by mpirun (docs/distributed.md)");
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << desc << "\n";
      return 0;
    }
    if (train::IsDistributedStore(a.kv_store)) {
      dist::Init();
      a.rank = dist::Rank();
      a.ranks = dist::Size();
      // rank 0 speaks for the job; the others print only errors (stderr)
      if (a.rank != 0 && std::freopen("/dev/null", "w", stdout) == nullptr)
        std::fprintf(stderr, "rank %d: could not silence stdout\n", a.rank);
    }
    SYMNET_CHECK(a.network == "resnet")
        << "--network: only resnet is built in, got '" << a.network << "'";
    SYMNET_CHECK(a.amp == "auto" || a.amp == "bfloat16" || a.amp == "float16" || a.amp == "none")
        << "--amp must be auto, bfloat16, float16 or none, got '" << a.amp << "'";
    if (a.amp == "auto") {  // what the hardware runs natively (float32 where 16-bit is slower)
      std::string why;
      const DType t = AutoAmpDType(Device::CPU(), &why);  // this program trains on the CPU
      std::printf("--amp auto: %s\n", why.c_str());
      a.amp = t == DType::kFloat32 ? "none" : DTypeName(t);
    }
    SYMNET_CHECK(a.lr_schedule == "cosine" || a.lr_schedule == "step")
        << "--lr-schedule must be step or cosine, got '" << a.lr_schedule << "'";
    SYMNET_CHECK(a.batch_size >= 0 && a.disp_batches > 0)
        << "--batch-size must not be negative and --disp-batches must be positive";
    a.builtin = a.data_train.empty() && !a.synthetic && !a.benchmark;
    a.image_shape = ParseShape(a.image_shape_text.empty() ? (a.builtin ? "3,24,24" : "3,224,224")
                                                          : a.image_shape_text);
    if (a.num_classes == 0) a.num_classes = a.builtin ? 10 : 1000;
    if (a.batch_size == 0)
      a.batch_size = a.builtin ? 16 : 32;  // 1,437 training images: more, smaller steps
    a.run = a.amp == "none" ? "float32" : "amp-" + a.amp;
    if (a.benchmark) {
      Benchmark(a);
    } else if (a.compare) {
      Args f32 = a, amp = a;
      f32.amp = "none", f32.run = "float32";
      f32.log.clear(), amp.log.clear();  // one log per run
      if (amp.amp == "none") amp.amp = "bfloat16";
      amp.run = "amp-" + amp.amp;
      const Summary s1 = Train(f32), s2 = Train(amp);
      std::printf("\n%-16s %10s %14s %12s %10s\n", "run", "img/s", "arena MB", "val acc", "time s");
      for (const Summary* s : {&s1, &s2})
        std::printf("%-16s %10.2f %14.1f %12.3f %10.0f\n", s->run.c_str(), s->img_per_s,
                    s->arena_mb, s->val_accuracy, s->seconds);
      std::printf(
          "AMP / float32: %.2fx img/s, %.2fx activation memory (peak RSS of the process: %.0f MB); "
          "curves: python3 -c \"import symnet; symnet.viz.plot_training({'float32': "
          "'%s/float32.cpp.jsonl', "
          "'%s': '%s/%s.cpp.jsonl'}, 'compare_cpp.png')\"\n",
          s2.img_per_s / s1.img_per_s, s2.arena_mb / s1.arena_mb, PeakRssMB(), a.work_dir.c_str(),
          amp.run.c_str(), a.work_dir.c_str(), amp.run.c_str());
    } else {
      Train(a);
    }
    return 0;
  } catch (const po::error& e) {
    std::fprintf(stderr, "error: %s\n%s", e.what(),
                 [&] {
                   std::ostringstream os;
                   os << desc;
                   return os.str();
                 }()
                     .c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
