#pragma once
/// \file
/// Overloaded: a set of lambdas as one visitor, for an exhaustive std::visit. With one case per
/// alternative and no catch-all, a new alternative of the variant is a compile error in every
/// visit until it is handled there. OneOf names a group of alternatives that one case handles
/// alike, without a catch-all.

#include <concepts>
#include <type_traits>

namespace arbiter {

/// `std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, variant)`.
template <class... Cases>
struct Overloaded : Cases... {
    using Cases::operator()...;
};
template <class... Cases>
Overloaded(Cases...) -> Overloaded<Cases...>;

/// T (without const and reference) is one of Ts: a case taking `const OneOf<A, B> auto&`
/// handles A and B by name, where a plain `auto` would also take whatever is added later.
template <typename T, typename... Ts>
concept OneOf = (std::same_as<std::remove_cvref_t<T>, Ts> || ...);

}  // namespace arbiter
