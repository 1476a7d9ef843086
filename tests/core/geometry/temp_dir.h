// A fresh directory under the system temp dir for file round trips, removed with its contents
// when the object goes out of scope. Names carry the pid and a random suffix so parallel test
// processes never share one.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace contactsim::core {

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
      path_ = std::filesystem::temp_directory_path() /
              ("contactsim_geometry_test_" + std::to_string(::getpid()) + "_" +
               std::to_string(random()));
      if (std::filesystem::create_directory(path_)) return;
    }
    ADD_FAILURE() << "could not create a temporary directory";
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `contents` to `name` inside the directory and returns its path.
  std::filesystem::path Write(std::string_view name, std::string_view contents) const {
    const std::filesystem::path file = path_ / name;
    std::ofstream out(file, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    EXPECT_TRUE(out.good()) << "writing " << file;
    return file;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace contactsim::core
