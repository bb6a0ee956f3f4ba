#pragma once
// The op ids FlattenTileNdTo2D's analyses and rules look for or emit, interned once. Whether
// an op is a tile op at all is its id's family (ir::is_tile_op).
#include "tilewright/ir/op_id.hpp"

namespace tilewright::passes::flatten {

// The ops the rewrites emit or inspect, interned once.
struct OpIds {
  ir::OpId load = ir::intern_op("tile.load");
  ir::OpId store = ir::intern_op("tile.store");
  ir::OpId create = ir::intern_op("tile.create");
  ir::OpId full = ir::intern_op("tile.full");
  ir::OpId slice = ir::intern_op("tile.slice");
  ir::OpId read = ir::intern_op("tile.read");
  ir::OpId write = ir::intern_op("tile.write");
  ir::OpId assemble = ir::intern_op("tile.assemble");
  ir::OpId transpose = ir::intern_op("tile.transpose");
  ir::OpId transpose_view = ir::intern_op("tile.transpose_view");
  ir::OpId reshape = ir::intern_op("tile.reshape");
  ir::OpId reinterpret_view = ir::intern_op("tile.reinterpret_view");
  ir::OpId batch_matmul = ir::intern_op("tile.batch_matmul");
  ir::OpId batch_matmul_acc = ir::intern_op("tile.batch_matmul_acc");
  ir::OpId matmul = ir::intern_op("tile.matmul");
  ir::OpId matmul_acc = ir::intern_op("tile.matmul_acc");
  ir::OpId move = ir::intern_op("tile.move");
  ir::OpId cast = ir::intern_op("tile.cast");
  ir::OpId set_validshape = ir::intern_op("tile.set_validshape");
  ir::OpId tensor_view = ir::intern_op("tensor.view");
};

inline const OpIds& op_ids() {
  static const OpIds ids;
  return ids;
}

}  // namespace tilewright::passes::flatten
