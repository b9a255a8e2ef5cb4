// A test process's scratch directory: <system temp>/vcsim_<name>_<pid>.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <system_error>

namespace scratch {

// Emptied on this process's first use and removed when it exits. Pids wrap (at 32 768 by default), so a
// directory of the same name can hold what an earlier test process left, and a check that an output was not
// written would then see that process's file.
inline std::filesystem::path dir(const std::string& name) {
  struct Owned {
    std::filesystem::path path;
    ~Owned() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static std::map<std::string, Owned> owned;
  auto [it, first] = owned.try_emplace(name);
  if (first) {
    it->second.path = std::filesystem::temp_directory_path() / ("vcsim_" + name + "_" + std::to_string(getpid()));
    std::filesystem::remove_all(it->second.path);
  }
  std::filesystem::create_directories(it->second.path);
  return it->second.path;
}

}  // namespace scratch
