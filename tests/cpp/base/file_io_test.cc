/*! \brief Crash-safe writes: atomic replacement, failures that keep the previous file, no
 *  temporary files left behind, appended log lines and the repair of a torn last line. */
#include "symnet/file_io.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "symnet/base.h"

namespace symnet {
namespace {

class FileIO : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/symnet_file_io_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string Read(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::vector<std::string> Entries() {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir_.c_str());
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    ::closedir(d);
    return out;
  }
  std::string dir_;
};

TEST_F(FileIO, WriteReplacesWholeAndLeavesNoTemporaryFile) {
  const std::string p = dir_ + "/a.params";
  WriteFileAtomically(p, "first");
  WriteFileAtomically(p, std::string(100000, 'x'));
  EXPECT_EQ(Read(p), std::string(100000, 'x'));
  EXPECT_EQ(Entries(), std::vector<std::string>{"a.params"});
}

TEST_F(FileIO, AFailedWriteKeepsThePreviousFileAndSaysWhy) {
  const std::string p = dir_ + "/a.params";
  WriteFileAtomically(p, "previous");
  try {
    WriteFileAtomically(dir_ + "/no/such/folder/b.params", "x");
    FAIL() << "writing into a missing folder did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("b.params"), std::string::npos) << e.what();
  }
  ::mkdir((dir_ + "/sub").c_str(), 0755);
  EXPECT_THROW(WriteFileAtomically(dir_ + "/sub", "x"), Error);  // a folder is not a file
  EXPECT_EQ(Read(p), "previous");
}

// disk full, simulated by a file size limit: the write fails with EFBIG part-way through
TEST_F(FileIO, DiskFullKeepsThePreviousFileAndRemovesTheTemporary) {
  const std::string p = dir_ + "/a.params";
  WriteFileAtomically(p, "previous");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // child: limit files to 4 KiB and ignore SIGXFSZ so write() reports EFBIG
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    try {
      WriteFileAtomically(p, std::string(1 << 20, 'y'));
    } catch (const Error& e) {
      const std::string msg = e.what();
      ::_exit(msg.find("File too large") != std::string::npos &&
                      msg.find("previous file") != std::string::npos
                  ? 0
                  : 2);
    }
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no error raised, 2: the error did not say why";
  EXPECT_EQ(Read(p), "previous");
  EXPECT_EQ(Entries(), std::vector<std::string>{"a.params"});
}

TEST_F(FileIO, UncommittedWriterLeavesNothing) {
  const std::string p = dir_ + "/a.rec";
  WriteFileAtomically(p, "old");
  {
    AtomicFileWriter w(p);
    w.Write("new data", 8);
    EXPECT_EQ(w.Tell(), 8u);
  }  // destroyed without Commit: as if an error happened while writing
  EXPECT_EQ(Read(p), "old");
  EXPECT_EQ(Entries(), std::vector<std::string>{"a.rec"});
  AtomicFileWriter w(p);
  w.Write("new data", 8);
  w.Commit();
  EXPECT_EQ(Read(p), "new data");
  EXPECT_THROW(w.Commit(), Error);
}

TEST_F(FileIO, KillHookKillsBetweenTheTemporaryWriteAndTheRename) {
  const std::string p = dir_ + "/a.params";
  WriteFileAtomically(p, "previous");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("SYMNET_TEST_KILL_IN_SAVE", "2", 1);  // the second save from now on
    WriteFileAtomically(dir_ + "/other", "first save passes");
    WriteFileAtomically(p, "never renamed");
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(Read(p), "previous");
  EXPECT_EQ(Read(dir_ + "/other"), "first save passes");
  int temps = 0;  // the complete temporary file stays behind, under a name no loader matches
  for (const auto& e : Entries()) temps += e.find(".tmp-") != std::string::npos;
  EXPECT_EQ(temps, 1);
}

TEST_F(FileIO, AppendedLinesAndATornLastLine) {
  const std::string p = dir_ + "/log.jsonl";
  EXPECT_EQ(TruncateTornLastLine(p), "");  // no log yet
  AppendLine(p, "{\"a\": 1}");
  AppendLine(p, "{\"a\": 2}");
  EXPECT_EQ(TruncateTornLastLine(p), "");  // ends in a newline: untouched
  EXPECT_EQ(Read(p), "{\"a\": 1}\n{\"a\": 2}\n");
  {
    std::ofstream f(p, std::ios::app);
    f << "{\"a\": 3, \"b";  // killed mid-line
  }
  EXPECT_EQ(TruncateTornLastLine(p), "{\"a\": 3, \"b");
  EXPECT_EQ(Read(p), "{\"a\": 1}\n{\"a\": 2}\n");
  AppendLine(p, "{\"a\": 3}");
  EXPECT_EQ(Read(p), "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3}\n");
  // a torn line longer than one read chunk, and a file that is one torn line
  const std::string long_line(10000, 'z');
  WriteFileAtomically(p, "ok\n" + long_line);
  EXPECT_EQ(TruncateTornLastLine(p), long_line);
  EXPECT_EQ(Read(p), "ok\n");
  WriteFileAtomically(p, long_line);
  EXPECT_EQ(TruncateTornLastLine(p), long_line);
  EXPECT_EQ(Read(p), "");
}

}  // namespace
}  // namespace symnet
