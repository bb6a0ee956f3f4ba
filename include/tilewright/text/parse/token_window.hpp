#pragma once
// The parser's window on the token stream: tokens by serial number, appended at the back as
// the scanner reads and released from the front between statements. Storage is blocks of
// tokens, reused once released, so a reference stays valid until its own token is released
// and a 100k-statement kernel costs a handful of blocks, not an allocation per few tokens (a
// std::deque of this 88-byte Token allocates a node per 5 tokens).
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "tilewright/text/lexer.hpp"

namespace tilewright::text::parser_detail {

class TokenWindow {
 public:
  [[nodiscard]] std::size_t begin() const noexcept { return base_; }  // first serial held
  [[nodiscard]] std::size_t end() const noexcept { return end_; }      // one past the last
  [[nodiscard]] bool holds(std::size_t serial) const noexcept { return serial >= base_ && serial < end_; }

  [[nodiscard]] const Token& operator[](std::size_t serial) const noexcept {
    const std::size_t k = serial - block_base_;
    return (*blocks_[k / kBlock])[k % kBlock];
  }
  [[nodiscard]] Token& back() noexcept { return slot(end_ - 1); }
  [[nodiscard]] const Token& back() const noexcept { return (*this)[end_ - 1]; }

  void push_back(Token&& t) {
    const std::size_t k = end_ - block_base_;
    if (k / kBlock == blocks_.size()) blocks_.push_back(fresh_block());
    (*blocks_[k / kBlock])[k % kBlock] = std::move(t);
    ++end_;
  }

  // Appends the token with serial number `serial`; after a gap (a block the scanner skipped)
  // the window starts over there.
  void push_at(std::size_t serial, Token&& t) {
    if (serial != end_) reset(serial, {});
    push_back(std::move(t));
  }

  // Drops the tokens before `serial`, always keeping the last one.
  void release_before(std::size_t serial) {
    if (end_ == base_) return;
    base_ = std::max(base_, std::min(serial, end_ - 1));
    std::size_t whole = (base_ - block_base_) / kBlock;
    if (whole == 0) return;
    for (std::size_t b = 0; b < whole; ++b) spare_.push_back(std::move(blocks_[b]));
    blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(whole));
    block_base_ += whole * kBlock;
  }

  // Starts over at `serial` with these tokens (a checkpoint's read-ahead).
  void reset(std::size_t serial, const std::vector<Token>& tokens) {
    for (auto& b : blocks_) spare_.push_back(std::move(b));
    blocks_.clear();
    block_base_ = base_ = end_ = serial;
    for (const Token& t : tokens) push_back(Token(t));
  }

 private:
  static constexpr std::size_t kBlock = 256;
  using Block = std::array<Token, kBlock>;

  Token& slot(std::size_t serial) noexcept {
    const std::size_t k = serial - block_base_;
    return (*blocks_[k / kBlock])[k % kBlock];
  }
  std::unique_ptr<Block> fresh_block() {
    if (spare_.empty()) return std::make_unique<Block>();
    std::unique_ptr<Block> b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }

  std::vector<std::unique_ptr<Block>> blocks_;  // blocks_[0] holds serial block_base_
  std::vector<std::unique_ptr<Block>> spare_;
  std::size_t block_base_ = 0;
  std::size_t base_ = 0;
  std::size_t end_ = 0;
};

}  // namespace tilewright::text::parser_detail
