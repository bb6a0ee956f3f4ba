#pragma once
// --split-input-file: one input file holding several cases, separated by lines that read
// `# -----` (a pl comment, so the file stays readable). Each chunk is parsed and run on its
// own; its first_line lets diagnostics point into the original file.
#include <string_view>
#include <vector>

namespace tilewright::opt {

inline constexpr std::string_view split_marker = "# -----";

struct Chunk {
  std::string_view text;  // without the marker lines
  int first_line = 1;     // line of the original file the chunk's first line is
};

// A marker is a line whose text, without trailing blanks, is exactly `# -----`.
inline std::vector<Chunk> split_input(std::string_view source) {
  std::vector<Chunk> chunks;
  std::size_t chunk_begin = 0;
  int chunk_line = 1;
  int line = 1;
  for (std::size_t begin = 0; begin < source.size();) {
    std::size_t end = source.find('\n', begin);
    std::size_t next = end == std::string_view::npos ? source.size() : end + 1;
    std::string_view text = source.substr(begin, next - begin);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
      text.remove_suffix(1);
    if (text == split_marker) {
      chunks.push_back({source.substr(chunk_begin, begin - chunk_begin), chunk_line});
      chunk_begin = next;
      chunk_line = line + 1;
    }
    begin = next;
    ++line;
  }
  chunks.push_back({source.substr(chunk_begin), chunk_line});
  return chunks;
}

}  // namespace tilewright::opt
