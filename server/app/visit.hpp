#pragma once
/// \file
/// Overloaded: an overload set of lambdas for std::visit. With no generic lambda among them, a
/// variant alternative that none of them takes is a compile error: a new command or message must
/// be handled where it is visited.

namespace arbiter::server::app {

/// Inherits the call operators of every lambda it is built from.
template <typename... Handlers>
struct Overloaded : Handlers... {
    using Handlers::operator()...;
};
template <typename... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

}  // namespace arbiter::server::app
