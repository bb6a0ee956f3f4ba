#pragma once
// IR properties: facts about a program that passes require, produce and invalidate.
// A PropertySet is a constexpr bit set so pipelines can be checked at compile time.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace tilewright::pass {

enum class Property : std::uint8_t {
  SSAForm,
  SplitIncoreOrch,
  IncoreTileOps,
  TileOps2D,
  TileMemoryInferred,
  NormalizedStmtStructure,
  HasMemRefs,
  TensorViewCanonical,
};
inline constexpr std::size_t property_count = 8;

constexpr std::string_view name_of(Property p) noexcept {
  constexpr std::string_view names[] = {"SSAForm",          "SplitIncoreOrch",
                                        "IncoreTileOps",    "TileOps2D",
                                        "TileMemoryInferred", "NormalizedStmtStructure",
                                        "HasMemRefs",       "TensorViewCanonical"};
  return names[static_cast<std::size_t>(p)];
}

constexpr std::optional<Property> property_by_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < property_count; ++i)
    if (name_of(static_cast<Property>(i)) == name) return static_cast<Property>(i);
  return std::nullopt;
}

class PropertySet {
 public:
  constexpr PropertySet() = default;
  constexpr PropertySet(std::initializer_list<Property> ps) {
    for (Property p : ps) bits_ |= bit(p);
  }
  [[nodiscard]] constexpr bool contains(Property p) const noexcept { return bits_ & bit(p); }
  [[nodiscard]] constexpr bool contains(PropertySet s) const noexcept { return (bits_ & s.bits_) == s.bits_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_ == 0; }
  constexpr PropertySet operator|(PropertySet o) const noexcept { return from_bits(bits_ | o.bits_); }
  constexpr PropertySet operator-(PropertySet o) const noexcept { return from_bits(bits_ & ~o.bits_); }
  constexpr bool operator==(const PropertySet&) const = default;

  template <class F>
  constexpr void for_each(F&& f) const {
    for (std::size_t i = 0; i < property_count; ++i)
      if (bits_ & (1u << i)) f(static_cast<Property>(i));
  }
  [[nodiscard]] std::string to_string() const {
    std::string out;
    for_each([&](Property p) {
      if (!out.empty()) out += ", ";
      out += name_of(p);
    });
    return "{" + out + "}";
  }

 private:
  static constexpr std::uint32_t bit(Property p) noexcept { return 1u << static_cast<unsigned>(p); }
  static constexpr PropertySet from_bits(std::uint32_t b) noexcept {
    PropertySet s;
    s.bits_ = b;
    return s;
  }
  std::uint32_t bits_ = 0;
};

}  // namespace tilewright::pass
