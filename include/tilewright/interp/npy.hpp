#pragma once
// NumPy .npy files (format version 1.0, little-endian, C order), so `tilewright-opt --run`
// can read a kernel's inputs from NumPy and write its outputs back for comparison with a
// NumPy reference. BF16 and the FP8 formats have no NumPy dtype: they are written as float32
// (exactly: every value of theirs is one) and read from any float file.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/interp/numeric.hpp"
#include "tilewright/interp/value.hpp"

namespace tilewright::interp {

struct NpyArray {
  DataType dtype = DataType::FP32;
  Dims shape;
  std::vector<double> data;  // C order
  std::string source;        // where it came from, for messages ("in/x.npy"); empty: in memory
};

namespace npy_detail {

struct Descr {
  char kind;  // 'f', 'i', 'u', 'b'
  int bytes;
};

inline Descr descr_of(DataType t) {
  switch (t) {
    case DataType::FP16: return {'f', 2};
    case DataType::FP32: case DataType::BF16: case DataType::FP8E4M3FN: case DataType::FP8E5M2: return {'f', 4};
    case DataType::BOOL: return {'b', 1};
    case DataType::INT8: return {'i', 1};
    case DataType::INT16: return {'i', 2};
    case DataType::INT32: return {'i', 4};
    case DataType::INT64: case DataType::INDEX: return {'i', 8};
    case DataType::UINT8: return {'u', 1};
    case DataType::UINT16: return {'u', 2};
    case DataType::UINT32: return {'u', 4};
    case DataType::UINT64: return {'u', 8};
    default: return {'?', 0};
  }
}

inline DataType dtype_of(Descr d) {
  switch (d.kind) {
    case 'f': return d.bytes == 2 ? DataType::FP16 : DataType::FP32;
    case 'b': return DataType::BOOL;
    case 'i': return d.bytes == 1 ? DataType::INT8 : d.bytes == 2 ? DataType::INT16 : d.bytes == 4 ? DataType::INT32 : DataType::INT64;
    default: return d.bytes == 1 ? DataType::UINT8 : d.bytes == 2 ? DataType::UINT16 : d.bytes == 4 ? DataType::UINT32 : DataType::UINT64;
  }
}

[[noreturn]] inline void bad(std::string_view file, const std::string& why) {
  throw RunError(RunErrorKind::invalid, std::string(file) + ": not a .npy file this tool reads: " + why);
}

}  // namespace npy_detail

inline std::string npy_encode(const NpyArray& a) {
  using namespace npy_detail;
  Descr d = descr_of(a.dtype);
  if (!d.bytes) throw RunError(RunErrorKind::unsupported, "dtype " + std::string(ir::name_of(a.dtype)) + " has no .npy form");
  std::string shape = "(";
  for (std::size_t i = 0; i < a.shape.size(); ++i) shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : i + 1 < a.shape.size() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + (d.kind == 'b' ? '|' : '<') + d.kind + std::to_string(d.bytes) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  DataType storage = a.dtype == DataType::FP16 ? DataType::FP16 : d.kind == 'f' ? DataType::FP32 : a.dtype;
  for (double v : a.data) {
    std::uint64_t bits = encode_bits(v, storage);
    for (int b = 0; b < d.bytes; ++b) out += static_cast<char>((bits >> (8 * b)) & 0xff);
  }
  return out;
}

inline NpyArray npy_decode(std::string_view bytes, std::string_view file) {
  using namespace npy_detail;
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") bad(file, "the magic string is missing");
  int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(file, "truncated header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    start = 12;
  } else {
    bad(file, "format version " + std::to_string(major));
  }
  if (bytes.size() < start + header_len) bad(file, "truncated header");
  std::string_view h = bytes.substr(start, header_len);
  auto field = [&](std::string_view key) -> std::string_view {
    auto k = h.find(key);
    if (k == std::string_view::npos) bad(file, "the header has no " + std::string(key));
    auto colon = h.find(':', k);
    return h.substr(colon + 1);
  };
  std::string_view descr = field("'descr'");
  auto q = descr.find('\'');
  if (q == std::string_view::npos || descr.size() < q + 4) bad(file, "unreadable descr");
  char order = descr[q + 1], kind = descr[q + 2];
  int nbytes = descr[q + 3] - '0';
  if (order == '>' || (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') || nbytes < 1 || nbytes > 8 ||
      (kind == 'f' && nbytes != 2 && nbytes != 4 && nbytes != 8))
    bad(file, "dtype '" + std::string(descr.substr(q + 1, 3)) + "' (expected little-endian bool, int, uint or float)");
  if (field("'fortran_order'").substr(0, 6).find("True") != std::string_view::npos) bad(file, "Fortran order");
  std::string_view shape = field("'shape'");
  auto open = shape.find('('), close = shape.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos) bad(file, "unreadable shape");
  NpyArray a;
  a.source = std::string(file);
  std::int64_t cur = -1;
  for (char ch : shape.substr(open + 1, close - open - 1)) {
    if (ch >= '0' && ch <= '9') cur = (cur < 0 ? 0 : cur * 10) + (ch - '0');
    else if (ch == ',' && cur >= 0) { a.shape.push_back(cur); cur = -1; }
  }
  if (cur >= 0) a.shape.push_back(cur);
  Descr d{kind, nbytes};
  a.dtype = kind == 'f' && nbytes == 8 ? DataType::FP32 : dtype_of(d);
  std::size_t n = static_cast<std::size_t>(element_count(a.shape));
  std::size_t body = start + header_len;
  if (bytes.size() < body + n * static_cast<std::size_t>(nbytes)) bad(file, "the data is shorter than its shape " + dims_string(a.shape));
  a.data.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits = 0;
    for (int b = 0; b < nbytes; ++b) bits |= std::uint64_t{static_cast<unsigned char>(bytes[body + i * static_cast<std::size_t>(nbytes) + static_cast<std::size_t>(b)])} << (8 * b);
    if (kind == 'f' && nbytes == 8) {
      double x = 0;
      std::memcpy(&x, &bits, sizeof x);
      a.data[i] = x;
    } else {
      a.data[i] = decode_bits(bits, a.dtype);
    }
  }
  return a;
}

}  // namespace tilewright::interp
