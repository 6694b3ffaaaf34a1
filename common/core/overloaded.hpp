#pragma once
/// \file
/// Overloaded: a set of lambdas as one visitor, for an exhaustive std::visit. With one case per
/// alternative and no catch-all, a new alternative of the variant is a compile error in every
/// visit until it is handled there.

namespace arbiter {

/// `std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, variant)`.
template <class... Cases>
struct Overloaded : Cases... {
    using Cases::operator()...;
};
template <class... Cases>
Overloaded(Cases...) -> Overloaded<Cases...>;

}  // namespace arbiter
