#pragma once
// Type annotations (§2): scalars, tensors with their views and memrefs, tiles with their
// memory space, views and memrefs, tuples, arrays and the marker types.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/math/checked.hpp"
#include "tilewright/text/parse/attributes.hpp"
#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline ir::DataType Parser::parse_dtype(std::string_view context) {
  if (!at(TokenKind::name)) fail_expected("a dtype such as pl.FP32", context);
  Span s = cur().span;
  std::string p = parse_dotted("a dtype");
  auto dt = dtype_of(p);
  if (!dt)
    fail(s, "expected a dtype such as pl.FP32 " + std::string(context) + ", found '" + p + "'");
  return *dt;
}

inline Expr Parser::parse_dim(std::string_view owner) {
  TypeCtx tc(*this);
  PVal v = parse_expr();
  if (v.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(v.e->type) ||
      !ir::is_integer(ir::as<ir::ScalarType>(v.e->type)->dtype))
    fail(v.span, "a dimension of " + std::string(owner) + " must be an integer expression, found " +
                     describe_val(v));
  return v.e;
}

inline std::vector<Expr> Parser::parse_shape(std::string_view owner) {
  TokenKind close;
  if (accept(TokenKind::lbracket))
    close = TokenKind::rbracket;
  else if (accept(TokenKind::lparen))
    close = TokenKind::rparen;
  else
    fail_expected("'[' to open the shape list of " + std::string(owner));
  std::vector<Expr> dims;
  while (!at(close)) {
    dims.push_back(parse_dim(owner));
    if (!accept(TokenKind::comma)) break;
  }
  expect(close, "to close the shape list of " + std::string(owner));
  return dims;
}

inline std::vector<Expr> Parser::dims_of(const PVal& v, std::string_view what) {
  if (v.kind != PVal::Kind::list)
    fail(v.span, "expected a list for " + std::string(what) + ", found " + describe_val(v));
  std::vector<Expr> out;
  for (const auto& it : v.items) {
    if (it.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(it.e->type) ||
        !ir::is_integer(ir::as<ir::ScalarType>(it.e->type)->dtype))
      fail(it.span, "an entry of " + std::string(what) + " must be an integer expression, found " +
                        describe_val(it));
    out.push_back(it.e);
  }
  return out;
}

inline Expr Parser::parse_memref() {
  Span s = tok(pos_ - 1).span;
  expect(TokenKind::lparen, "to open the arguments of pl.MemRef");
  std::string base;
  bool quoted = false;
  Span bs = cur().span;
  if (at(TokenKind::string)) {
    base = advance().text;
    quoted = true;
  } else if (at(TokenKind::name) && (peek().is(TokenKind::comma) || peek().is(TokenKind::rparen))) {
    base = advance().text;
  } else if (at(TokenKind::integer)) {
    fail(bs,
         "the legacy pl.MemRef(addr, size, id) form is not supported; write pl.MemRef(base, "
         "offset, size)");
  } else {
    fail_expected("the base of pl.MemRef (a name or a quoted name)");
  }
  Expr offset;
  std::uint64_t size = 0;
  std::int64_t slots = 1;
  bool pinned = true;
  while (accept(TokenKind::comma)) {
    if (at(TokenKind::rparen)) break;
    if (at_name("slots") && peek().is(TokenKind::assign)) {
      advance();
      advance();
      if (!at(TokenKind::integer) || cur().int_value < 1)
        fail_expected("a positive integer", "for slots=");
      slots = advance().int_value;
      continue;
    }
    if (!pinned) fail_expected("')' to close pl.MemRef");
    TypeCtx tc(*this, false);
    PVal off = parse_expr();
    if (off.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(off.e->type))
      fail(off.span, "expected the byte offset of pl.MemRef, found " + describe_val(off));
    offset = off.e;
    expect(TokenKind::comma, "after the byte offset of pl.MemRef");
    if (!at(TokenKind::integer) || cur().int_value < 0)
      fail_expected("the size in bytes of pl.MemRef");
    size = static_cast<std::uint64_t>(advance().int_value);
    pinned = false;
  }
  expect(TokenKind::rparen, "to close pl.MemRef");
  Expr slot;
  if (accept(TokenKind::lbracket)) {
    TypeCtx tc(*this, false);
    PVal k = parse_expr();
    if (k.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(k.e->type))
      fail(k.span, "expected a slot index, found " + describe_val(k));
    slot = k.e;
    expect(TokenKind::rbracket, "to close the slot index of pl.MemRef");
  }
  Expr ptr = ptr_var(base, !quoted, bs);
  return ir::make_expr(ir::MemRef{ptr, offset, size, pinned, slots, slot},
                       ir::marker_type(ir::Marker::MemRefType), s);
}

inline Expr Parser::ptr_var(const std::string& name, bool bare, const Span& s) {
  if (!fn_) fail(s, "pl.MemRef outside a function");
  if (auto it = fn_->ptrs.find(name); it != fn_->ptrs.end()) return it->second;
  if (bare) {
    if (auto it = fn_->scope.find(name); it != fn_->scope.end()) return it->second;
  }
  Expr v = ir::make_var(name, ir::marker_type(ir::Marker::Ptr), s);
  fn_->ptrs.emplace(name, v);
  return v;
}

inline std::optional<ir::TensorView> Parser::parse_tensor_view() {
  CallArgs a;
  {
    TypeCtx tc(*this);
    a = parse_call_args("pl.TensorView");
  }
  if (!a.pos.empty()) fail(a.pos[0].span, "pl.TensorView takes keyword arguments only");
  ir::TensorView v{{}, {}, ir::TensorLayout::ND, ir::PadValue::null};
  for (std::size_t i = 0; i < a.kw.size(); ++i) {
    const auto& [k, val] = a.kw[i];
    if (k == "valid_shape")
      v.valid_shape = dims_of(val, "valid_shape");
    else if (k == "stride")
      v.stride = dims_of(val, "stride");
    else if (k == "layout")
      v.layout = enum_kw<ir::TensorLayout>(val, "TensorLayout", k);
    else if (k == "pad")
      v.pad = enum_kw<ir::PadValue>(val, "PadValue", k);
    else
      fail(a.kw_spans[i],
           "unknown keyword '" + k + "' for pl.TensorView (valid_shape, stride, layout, pad)");
  }
  return v;
}

inline ir::TileView Parser::parse_tile_view(const std::vector<Expr>& shape,
                                            std::optional<ir::MemorySpace> mem, const CallArgs& a) {
  if (!a.pos.empty()) fail(a.pos[0].span, "pl.TileView takes keyword arguments only");
  ir::TileView v = ir::implicit_view(shape, mem);
  for (std::size_t i = 0; i < a.kw.size(); ++i) {
    const auto& [k, val] = a.kw[i];
    if (k == "valid_shape")
      v.valid_shape = dims_of(val, "valid_shape");
    else if (k == "stride")
      v.stride = dims_of(val, "stride");
    else if (k == "start_offset")
      v.start_offset = value_expr(val, "a start offset");
    else if (k == "blayout")
      v.blayout = enum_kw<ir::TileLayout>(val, "TileLayout", k);
    else if (k == "slayout")
      v.slayout = enum_kw<ir::TileLayout>(val, "TileLayout", k);
    else if (k == "pad")
      v.pad = enum_kw<ir::PadValue>(val, "PadValue", k);
    else if (k == "compact")
      v.compact = enum_kw<ir::CompactMode>(val, "CompactMode", k);
    else if (k == "fractal") {
      auto* c = val.kind == PVal::Kind::expr && val.literal ? ir::as<ir::ConstInt>(val.e) : nullptr;
      if (!c || c->value < 0)
        fail(val.span, "expected a non-negative integer for fractal, found " + describe_val(val));
      v.fractal = static_cast<std::uint64_t>(c->value);
    } else {
      fail(a.kw_spans[i], "unknown keyword '" + k + "' for pl.TileView");
    }
  }
  return v;
}

// The annotation at the cursor: the text from its first token to its closing bracket, and
// the number of tokens; empty when it is not a bracketed type or holds a comment.
// `toks(i)` is the token with serial number i.
template <class Tokens>
std::pair<std::string_view, std::size_t> annotation_text(const Tokens& toks, std::size_t pos, std::string_view src) {
  std::size_t i = pos;
  auto kind = [&](std::size_t k) { return toks(k).kind; };
  if (kind(i) != TokenKind::name) return {};
  while (kind(i + 1) == TokenKind::dot && kind(i + 2) == TokenKind::name) i += 2;
  if (kind(++i) != TokenKind::lbracket) return {};
  int depth = 0;
  for (;; ++i) {
    TokenKind k = kind(i);
    if (k == TokenKind::lbracket || k == TokenKind::lparen) ++depth;
    else if ((k == TokenKind::rbracket || k == TokenKind::rparen) && --depth == 0) break;
    else if (k == TokenKind::newline || k == TokenKind::end) return {};
  }
  std::size_t begin = toks(pos).offset, end = toks(i).offset + toks(i).length;
  std::string_view text = src.substr(begin, end - begin);
  if (text.find('#') != std::string_view::npos) return {};  // a comment inside: parse it
  return {text, i + 1 - pos};
}

// The names an annotation reads through the scope: names that are not a path's later part,
// a keyword or the `pl`/`pld` of a path, and quoted buffer bases.
template <class Tokens, class F>
void for_each_scope_name(const Tokens& toks, std::size_t first, std::size_t count, F&& f) {
  for (std::size_t k = first; k < first + count; ++k) {
    const Token& t = toks(k);
    bool after_dot = k > first && toks(k - 1).kind == TokenKind::dot;
    TokenKind next = toks(k + 1).kind;
    if (t.kind == TokenKind::string) {
      f(std::string_view(t.text));
    } else if (t.kind == TokenKind::name && !after_dot && next != TokenKind::assign &&
               !(next == TokenKind::dot && (t.text == "pl" || t.text == "pld"))) {
      f(std::string_view(t.text));
    }
  }
}

inline std::array<Expr, 4> Parser::binding_of(std::string_view name) const {
  std::array<Expr, 4> out;
  std::string key(name);
  if (fn_) {
    if (auto it = fn_->scope.find(key); it != fn_->scope.end()) out[0] = it->second;
    if (auto it = fn_->ptrs.find(key); it != fn_->ptrs.end()) out[2] = it->second;
  }
  if (auto it = dyn_.find(key); it != dyn_.end()) out[1] = it->second;
  if (auto it = consts_.find(key); it != consts_.end()) out[3] = it->second;
  return out;
}

inline Type Parser::remembered_annotation() {
  auto [text, count] = annotation_text(token_at(), pos_, src_);
  if (text.empty()) return nullptr;
  auto it = annotations_.find(text);
  if (it == annotations_.end() || it->second.tokens != count) return nullptr;
  for (const NameBinding& n : it->second.names)
    if (binding_of(n.name) != n.bound) return nullptr;
  pos_ += count;
  return it->second.type;
}

// After the annotation starting at token `first` was parsed to `t`: the bindings are taken
// now, so that names the parse bound (a dynamic dim, a buffer base met first here) count.
inline void Parser::remember_annotation(std::size_t first, const Type& t) {
  auto [text, count] = annotation_text(token_at(), first, src_);
  if (text.empty() || count != pos_ - first) return;
  RememberedAnnotation entry{t, count, {}};
  for_each_scope_name(token_at(), first, count, [&](std::string_view name) {
    for (const NameBinding& n : entry.names)
      if (n.name == name) return;
    entry.names.push_back(NameBinding{std::string(name), binding_of(name)});
  });
  annotations_.insert_or_assign(text, std::move(entry));
}

inline Type Parser::parse_type() {
  if (Type t = remembered_annotation()) return t;
  std::size_t first = pos_;
  Type t = parse_type_text();
  if (ir::is_structured_type(t)) remember_annotation(first, t);
  return t;
}

inline Type Parser::parse_type_text() {
  DepthGuard g(*this, cur().span);
  if (at(TokenKind::string)) {  // a string annotation: resolved from the value
    advance();
    return nullptr;
  }
  if (!at(TokenKind::name)) fail_expected("a type");
  Span s = cur().span;
  std::string path = parse_dotted("a type");
  auto seg = split_path(path);
  std::string_view last = seg.back();
  if (last == "Scalar") {
    bool sq = at(TokenKind::lbracket);
    if (!sq && !at(TokenKind::lparen)) fail_expected("'[' after pl.Scalar");
    advance();
    ir::DataType dt = parse_dtype("in pl.Scalar");
    expect(sq ? TokenKind::rbracket : TokenKind::rparen, "to close pl.Scalar");
    return ir::scalar_type(dt);
  }
  if (last == "Tensor" || last == "DistributedTensor")
    return types_(parse_tensor_type(last == "DistributedTensor", s));
  if (last == "Tile") return types_(parse_tile_type(s));
  if (last == "Tuple" || path == "tuple") {
    expect(TokenKind::lbracket, "after " + path);
    std::vector<Type> els;
    if (at(TokenKind::lparen) && peek().is(TokenKind::rparen)) {
      advance();
      advance();
    } else {
      while (!at(TokenKind::rbracket)) {
        Span es = cur().span;
        Type t = parse_type();
        if (!t) fail(es, "a string is not a type inside " + path);
        els.push_back(t);
        if (!accept(TokenKind::comma)) break;
      }
    }
    expect(TokenKind::rbracket, "to close " + path);
    return types_(ir::make_type(ir::TupleType{std::move(els)}));
  }
  if (last == "Array") {
    expect(TokenKind::lbracket, "after pl.Array");
    if (!at(TokenKind::integer) || cur().int_value < 0)
      fail_expected("the extent of pl.Array (an integer)");
    std::int64_t n = advance().int_value;
    expect(TokenKind::comma, "after the extent of pl.Array");
    ir::DataType dt = parse_dtype("in pl.Array");
    accept(TokenKind::comma);
    expect(TokenKind::rbracket, "to close pl.Array");
    return ir::make_type(ir::ArrayType{dt, n});
  }
  static const std::pair<std::string_view, ir::Marker> markers[] = {
      {"Ptr", ir::Marker::Ptr},
      {"MemRefType", ir::Marker::MemRefType},
      {"WindowBufferType", ir::Marker::WindowBufferType},
      {"CommCtxType", ir::Marker::CommCtxType},
      {"PrefetchAsyncContext", ir::Marker::PrefetchAsyncContext},
      {"AsyncEvent", ir::Marker::AsyncEvent},
      {"AsyncSession", ir::Marker::AsyncSession}};
  for (const auto& [n, m] : markers)
    if (last == n) return ir::marker_type(m);
  if (last == "UnknownType") return ir::unknown_type();
  if (dtype_of(path))
    fail(s, "incomplete type annotation '" + path + "'; write pl.Scalar[" + path + "]");
  if (last == "Out" || last == "InOut")
    fail(s, path + "[...] is only allowed on a function parameter");
  fail(s, "unknown type '" + path + "'");
}

// Every consumer indexes a view's valid_shape and stride by the shape's axes.
inline void Parser::check_view_rank(const std::vector<Expr>& valid, const std::vector<Expr>& stride,
                                    const std::vector<Expr>& shape, std::string_view owner,
                                    std::string_view view, const Span& s) const {
  auto check = [&](const std::vector<Expr>& list, std::string_view field) {
    if (!list.empty() && list.size() != shape.size())
      fail(s, std::string(view) + " " + std::string(field) + " has " + std::to_string(list.size()) +
                  " entries but the " + std::string(owner) + " shape has " +
                  std::to_string(shape.size()) + "; give one per axis");
  };
  check(valid, "valid_shape");
  check(stride, "stride");
}

// A tile is a buffer of positive static extents; a tensor's extents are at least 0. Either
// way the element count, in bytes, must fit the 64-bit index arithmetic every pass uses.
inline void Parser::check_extents(const std::vector<Expr>& shape, ir::DataType dt, std::string_view owner,
                                  bool tile, const Span& s) const {
  std::int64_t bytes = (ir::storage_bits(dt) + 7) / 8;
  for (const auto& d : shape) {
    auto c = ir::const_int(d);
    if (!c) continue;
    const Span& at = d->span.known() ? d->span : s;
    if (tile && *c <= 0)
      fail(at, "a dimension of " + std::string(owner) + " must be positive, got " + std::to_string(*c) +
                   "; a tile is a fixed-size buffer");
    if (*c < 0) fail(at, "a dimension of " + std::string(owner) + " cannot be negative, got " + std::to_string(*c));
    auto next = math::checked_mul(bytes, *c);
    if (!next)
      fail(at, "the dimensions of " + std::string(owner) + " overflow: " + ir::dims_text(shape) + " of pl." +
                   std::string(ir::name_of(dt)) + " holds more than 2^63 bytes");
    bytes = *next;
  }
}

inline Type Parser::parse_tensor_type(bool distributed, const Span& s) {
  std::string owner = distributed ? "pld.DistributedTensor" : "pl.Tensor";
  if (at(TokenKind::lparen)) {  // legacy pl.Tensor((64, 128), pl.FP16)
    advance();
    auto shape = parse_shape(owner);
    expect(TokenKind::comma, "after the shape of " + owner);
    ir::DataType dt = parse_dtype("in " + owner);
    accept(TokenKind::comma);
    expect(TokenKind::rparen, "to close " + owner);
    check_extents(shape, dt, owner, /*tile=*/false, s);
    return ir::make_tensor_type(std::move(shape), dt, std::nullopt, nullptr, distributed);
  }
  expect(TokenKind::lbracket, "after " + owner);
  auto shape = parse_shape(owner);
  expect(TokenKind::comma, "after the shape of " + owner);
  ir::DataType dt = parse_dtype("in " + owner);
  std::optional<ir::TensorView> view;
  Expr memref;
  int slot = 2;
  while (accept(TokenKind::comma)) {
    if (at(TokenKind::rbracket)) break;
    ++slot;
    Span ps = cur().span;
    if (at(TokenKind::string) && distributed) {  // "window_buffer=<name>": a back-reference only
      advance();
      continue;
    }
    if (at_call_of("MemRef")) {
      if (memref) fail(ps, owner + " has two pl.MemRef parts");
      parse_dotted("pl.MemRef");
      memref = parse_memref();
      continue;
    }
    if (slot > 3 || memref)
      fail(ps,
           "expected a pl.MemRef as the fourth part of " + owner + ", found " + describe(cur()));
    if (at_call_of("TensorView")) {
      parse_dotted("pl.TensorView");
      view = parse_tensor_view();
      continue;
    }
    if (!at(TokenKind::name))
      fail_expected("a pl.TensorView, a layout or a pl.MemRef", "in " + owner);
    std::string p = parse_dotted("a layout");
    auto ps2 = split_path(p);
    auto lay = ir::enum_from_name<ir::TensorLayout>(ps2.back());
    if (!lay || (ps2.size() > 2 && ps2[ps2.size() - 2] != "TensorLayout"))
      fail(ps,
           "expected a pl.TensorView, a layout or a pl.MemRef in " + owner + ", found '" + p + "'");
    if (*lay == ir::TensorLayout::DN)
      fail(ps,
           "a bare DN layout is not accepted; write pl.TensorView(stride=[...], "
           "layout=pl.TensorLayout.DN)");
    view = ir::TensorView{{}, {}, *lay, ir::PadValue::null};
  }
  expect(TokenKind::rbracket, "to close " + owner);
  check_extents(shape, dt, owner, /*tile=*/false, s);
  if (view) {
    check_view_rank(view->valid_shape, view->stride, shape, owner, "pl.TensorView", s);
  }
  return ir::make_tensor_type(std::move(shape), dt, std::move(view), std::move(memref),
                              distributed);
}

inline Type Parser::parse_tile_type(const Span& s) {
  expect(TokenKind::lbracket, "after pl.Tile");
  auto shape = parse_shape("pl.Tile");
  expect(TokenKind::comma, "after the shape of pl.Tile");
  ir::DataType dt = parse_dtype("in pl.Tile");
  std::optional<ir::MemorySpace> mem;
  Expr memref;
  std::optional<CallArgs> view_args;
  Span view_span, memref_span;
  while (accept(TokenKind::comma)) {
    if (at(TokenKind::rbracket)) break;
    Span ps = cur().span;
    if (at_call_of("MemRef")) {
      if (memref) fail(ps, "pl.Tile has two pl.MemRef parts");
      parse_dotted("pl.MemRef");
      memref = parse_memref();
      memref_span = ps;
      continue;
    }
    if (at_call_of("TileView")) {
      if (view_args) fail(ps, "pl.Tile has two pl.TileView parts");
      parse_dotted("pl.TileView");
      TypeCtx tc(*this);
      view_args = parse_call_args("pl.TileView");
      view_span = ps;
      continue;
    }
    if (!at(TokenKind::name))
      fail_expected("a memory space, a pl.MemRef or a pl.TileView", "in pl.Tile");
    std::string p = parse_dotted("a memory space");
    auto m = memory_space_of(p);
    if (m && *m != ir::MemorySpace::ScalarLocal) {
      if (mem) fail(ps, "pl.Tile has two memory spaces");
      mem = m;
      continue;
    }
    if (enum_of<ir::TensorLayout>(p, "TensorLayout") ||
        ir::enum_from_name<ir::TensorLayout>(split_path(p).back()))
      fail(ps,
           "a tensor layout is not allowed in pl.Tile; use pl.TileView(blayout=..., slayout=...)");
    fail(ps,
         "expected a memory space such as pl.Mem.Vec, a pl.MemRef or a pl.TileView in pl.Tile, "
         "found '" +
             p + "'");
  }
  expect(TokenKind::rbracket, "to close the pl.Tile annotation");
  if (memref && !mem)
    fail(memref_span,
         "a pl.Tile with a pl.MemRef must also name its memory space, e.g. pl.Mem.Vec");
  std::optional<ir::TileView> view;
  if (view_args) {
    view = parse_tile_view(shape, mem, *view_args);
    check_view_rank(view->valid_shape, view->stride, shape, "pl.Tile", "pl.TileView", view_span);
  }
  (void)s;
  check_extents(shape, dt, "pl.Tile", /*tile=*/true, s);
  return ir::make_tile_type(std::move(shape), dt, std::move(view), mem, std::move(memref));
}

}  // namespace tilewright::text::parser_detail
