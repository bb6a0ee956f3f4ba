#pragma once
// Annotations (§2): dims, memrefs, tensor and tile views (only the fields that differ from
// the implicit ones), and every type.
#include <cstddef>
#include <string>

#include "tilewright/text/print/printer_class.hpp"

namespace tilewright::text::printer_detail {

// §2.6: bare ConstInt, Var by name, anything else with typed constant leaves.
inline void Printer::dim(const Expr& e) {
  if (auto* c = ir::as<ir::ConstInt>(e)) {
    append_int(out, c->value);
  } else if (ir::is_var_like(e)) {
    var_name(e);
  } else {
    expr(e, /*typed=*/true);
  }
}

inline void Printer::dims(const std::vector<Expr>& ds) {
  out += '[';
  for (std::size_t i = 0; i < ds.size(); ++i) {
    if (i) out += ", ";
    dim(ds[i]);
  }
  out += ']';
}

inline void Printer::memref(const Expr& e) {
  auto* m = ir::as<ir::MemRef>(e);
  if (!m) {
    expr(e);
    return;
  }
  out += "pl.MemRef(";
  bool bare = !in_signature && m->base && !m->pinned && m->offset && body_defs &&
              body_defs->count(m->base.get());
  if (bare) {
    var_name(m->base);
  } else if (m->base) {
    out += '"';
    if (auto it = names.find(m->base.get()); it != names.end())
      out += it->second;
    else
      out += ir::name_hint(m->base);
    out += '"';
  } else {
    out += "\"\"";
  }
  if (!m->pinned && m->offset) {
    out += ", ";
    expr(m->offset);
    out += ", ";
    append_uint(out, m->size);
  }
  if (m->slots > 1) {
    out += ", slots=";
    append_int(out, m->slots);
  }
  out += ')';
  if (m->slot_index) {
    out += '[';
    expr(m->slot_index);
    out += ']';
  }
}

inline void Printer::tensor_view(const ir::TensorType& t) {
  const ir::TensorView& v = *t.view;
  out += "pl.TensorView(";
  if (!v.valid_shape.empty() && !ir::loosely_equal(v.valid_shape, t.shape)) {
    out += "valid_shape=";
    dims(v.valid_shape);
    out += ", ";
  }
  // Both always: the constructor upstream requires them together (§2.3).
  out += "stride=";
  dims(v.stride);
  out += ", layout=pl.TensorLayout.";
  out += enum_name(v.layout);
  if (v.pad != ir::PadValue::null) {
    out += ", pad=pl.PadValue.";
    out += enum_name(v.pad);
  }
  out += ')';
}

inline void Printer::tile_view(const ir::TileType& t) {
  const ir::TileView& v = *t.view;
  ir::TileLayoutTriple implicit = ir::implicit_tile_layout(t.shape, t.memory);
  out += "pl.TileView(";
  bool first = true;
  auto sep = [&] {
    if (!first) out += ", ";
    first = false;
  };
  if (!v.valid_shape.empty() && !ir::loosely_equal(v.valid_shape, t.shape)) {
    sep();
    out += "valid_shape=";
    dims(v.valid_shape);
  }
  if (!v.stride.empty()) {
    sep();
    out += "stride=";
    dims(v.stride);
  }
  if (v.start_offset) {
    sep();
    out += "start_offset=";
    dim(v.start_offset);
  }
  if (v.blayout != implicit.blayout) {
    sep();
    out += "blayout=pl.TileLayout.";
    out += enum_name(v.blayout);
  }
  if (v.slayout != implicit.slayout) {
    sep();
    out += "slayout=pl.TileLayout.";
    out += enum_name(v.slayout);
  }
  if (v.fractal != implicit.fractal) {
    sep();
    out += "fractal=";
    append_uint(out, v.fractal);
  }
  if (v.pad != ir::PadValue::null) {
    sep();
    out += "pad=pl.PadValue.";
    out += enum_name(v.pad);
  }
  if (v.compact != ir::CompactMode::null) {
    sep();
    out += "compact=pl.CompactMode.";
    out += enum_name(v.compact);
  }
  out += ')';
}

inline void Printer::type(const Type& t) {
  if (in_signature || !ir::is_structured_type(t)) return type_text(t);
  if (auto it = type_texts.find(t.get()); it != type_texts.end()) {
    out += it->second;
    return;
  }
  std::size_t start = out.size();
  type_text(t);
  type_texts.emplace(t.get(), out.substr(start));
}

inline void Printer::type_text(const Type& t) {
  if (!t) {
    out += "pl.UnknownType";
    return;
  }
  ir::dispatch(t->v, ir::overloaded{
                         [&](const ir::UnknownType&) { out += "pl.UnknownType"; },
                         [&](const ir::ScalarType& s) {
                           out += "pl.Scalar[";
                           dtype(s.dtype);
                           out += ']';
                         },
                         [&](const ir::TensorType& s) {
                           out += s.distributed ? "pld.DistributedTensor[" : "pl.Tensor[";
                           dims(s.shape);
                           out += ", ";
                           dtype(s.dtype);
                           if (s.view) {
                             out += ", ";
                             tensor_view(s);
                           }
                           if (s.memref) {
                             out += ", ";
                             memref(s.memref);
                           }
                           out += ']';
                         },
                         [&](const ir::TileType& s) {
                           out += "pl.Tile[";
                           dims(s.shape);
                           out += ", ";
                           dtype(s.dtype);
                           if (s.memref) {
                             out += ", ";
                             memref(s.memref);
                           }
                           if (s.memory) {
                             out += ", pl.Mem.";
                             out += enum_name(*s.memory);
                           }
                           if (s.view) {
                             out += ", ";
                             tile_view(s);
                           }
                           out += ']';
                         },
                         [&](const ir::ArrayType& s) {
                           out += "pl.Array[";
                           append_int(out, s.extent);
                           out += ", ";
                           dtype(s.dtype);
                           out += ']';
                         },
                         [&](const ir::TupleType& s) {
                           out += "pl.Tuple[";
                           if (s.elements.empty()) out += "()";
                           for (std::size_t i = 0; i < s.elements.size(); ++i) {
                             if (i) out += ", ";
                             type(s.elements[i]);
                           }
                           out += ']';
                         },
                         [&](const ir::MarkerType& s) {
                           switch (s.kind) {
                             case ir::Marker::Ptr:
                               out += "pl.Ptr";
                               break;
                             case ir::Marker::MemRefType:
                               out += "pl.MemRefType";
                               break;
                             case ir::Marker::WindowBufferType:
                               out += "pld.WindowBufferType";
                               break;
                             case ir::Marker::CommCtxType:
                               out += "pld.CommCtxType";
                               break;
                             case ir::Marker::PrefetchAsyncContext:
                               out += "pl.PrefetchAsyncContext";
                               break;
                             case ir::Marker::AsyncEvent:
                               out += "pl.AsyncEvent";
                               break;
                             case ir::Marker::AsyncSession:
                               out += "pl.AsyncSession";
                               break;
                           }
                         },
                     });
}

}  // namespace tilewright::text::printer_detail
