// A file holding one fuzz input, for readers that take a path: written anew for every
// input under the temporary directory, named after the target and the process (so that
// parallel fuzzing jobs never share one), and removed when the target exits.
#pragma once

#include <sys/stat.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace clab::fuzz {

class FuzzFile {
 public:
  // `name` is the file's name within a directory of its own ("input.csv"): some readers
  // choose their format by the name's ending, and the checkpoint reader looks for a fixed
  // name ("checkpoint") in a directory.
  explicit FuzzFile(const std::string& name) {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/clab-fuzz-" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0700);
    path_ = dir_ + "/" + name;
  }
  ~FuzzFile() {
    std::remove(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  FuzzFile(const FuzzFile&) = delete;
  FuzzFile& operator=(const FuzzFile&) = delete;

  // Replaces the file's contents; aborts when the file cannot be written (the disk is
  // full): a fuzz run that reads an empty file in place of its input proves nothing.
  const std::string& Write(const uint8_t* data, size_t size) {
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    if (file == nullptr || (size > 0 && std::fwrite(data, 1, size, file) != size) || std::fclose(file) != 0) {
      std::perror(path_.c_str());
      std::abort();
    }
    return path_;
  }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace clab::fuzz
