#pragma once
// Reading a pl source file: the whole file as bytes, or a user error that says plainly why
// it cannot be read (a directory, a missing or unreadable file) instead of a stream
// exception surfacing as an internal error.
//
//   std::string read_source(const std::string& path)   // "-" reads standard input
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <system_error>

#include "tilewright/ir/diagnostic.hpp"

namespace tilewright::text {

inline std::string read_source(const std::string& path) {
  auto refuse = [&](const std::string& why) -> std::string {
    ir::throw_user_error("input", "cannot read '" + path + "': " + why);
  };
  std::string out;
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), {});
    if (std::cin.bad()) refuse("reading standard input failed");
    return out;
  }
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec) refuse(ec.message());
  if (std::filesystem::is_directory(status)) refuse("it is a directory; give the path of a .pto file");
  if (!std::filesystem::is_regular_file(status) && !std::filesystem::is_character_file(status) &&
      !std::filesystem::is_fifo(status))
    refuse("it is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(std::strerror(errno));
  // A read error mid-file (EIO, a directory on an odd filesystem) is thrown by the stream
  // buffer itself; it is the input's fault, not ours.
  try {
    // Whole blocks, not a character at a time through istreambuf_iterator (6 % of a parse).
    char block[1 << 16];
    while (in.read(block, sizeof block) || in.gcount() > 0) out.append(block, static_cast<std::size_t>(in.gcount()));
  } catch (const std::exception& e) {
    refuse(e.what());
  }
  if (in.bad()) refuse("reading failed part way");
  return out;
}

}  // namespace tilewright::text
