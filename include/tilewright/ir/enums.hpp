#pragma once
// Every enumeration the IR and its text form know, each with its printed names.
//
// Element types, memory spaces and layouts are the geometry's vocabulary as well: they are
// declared once in math/enums.hpp and taken here by name, with their facts (widths,
// promotion), so `ir::DataType` and `math::DataType` are one type. The enums below are the
// IR's own. One table per enum drives both directions (name → value for the parser, value →
// name for the printer), so a spelling exists exactly once.
#include <optional>
#include <string_view>

#include "tilewright/math/enums.hpp"

namespace tilewright::ir {

using math::CompactMode;
using math::DataType;
using math::MemorySpace;
using math::PadValue;
using math::TensorLayout;
using math::TileLayout;

using math::bit_width;
using math::byte_width;
using math::enum_from_name;
using math::enum_table;
using math::is_cube_memory;
using math::is_float;
using math::is_index_like;
using math::is_integer;
using math::is_unsigned;
using math::name_of;
using math::promote;
using math::same_index_class;
using math::storage_bits;

TILEWRIGHT_ENUM(ForKind, range, parallel, unroll, pipeline)
TILEWRIGHT_ENUM(FunctionType, Opaque, Orchestration, InCore, AIC, AIV, Group, Spmd, Inline,
                Graph)
TILEWRIGHT_ENUM(Level, AIV, AIC, CORE_GROUP, CHIP_DIE, CHIP, HOST, CLUSTER_0, CLUSTER_1,
                CLUSTER_2, GLOBAL)
TILEWRIGHT_ENUM(Role, Orchestrator, SubWorker)
TILEWRIGHT_ENUM(ParamDirection, In, Out, InOut)
TILEWRIGHT_ENUM(ArgDirection, input, output, inout, output_existing, no_dep, scalar)
TILEWRIGHT_ENUM(PipeType, MTE1, MTE2, MTE3, M, V, S, FIX, ALL)
TILEWRIGHT_ENUM(CastMode, none, rint, round, floor, ceil, trunc, odd)
TILEWRIGHT_ENUM(AtomicType, None_, Add)
TILEWRIGHT_ENUM(SplitMode, NONE, UP_DOWN, LEFT_RIGHT)

// The DSL accepts a few historical spellings of levels.
constexpr std::optional<Level> level_from_name(std::string_view s) noexcept {
  if (auto l = enum_from_name<Level>(s)) return l;
  if (s == "L2CACHE" || s == "PROCESSOR") return Level::CHIP_DIE;
  if (s == "UMA") return Level::CHIP;
  if (s == "NODE") return Level::HOST;
  if (s == "POD") return Level::CLUSTER_0;
  if (s == "CLOS1") return Level::CLUSTER_1;
  if (s == "CLOS2") return Level::CLUSTER_2;
  return std::nullopt;
}

constexpr bool is_incore(FunctionType t) noexcept {
  return t == FunctionType::InCore || t == FunctionType::AIC || t == FunctionType::AIV;
}

}  // namespace tilewright::ir
