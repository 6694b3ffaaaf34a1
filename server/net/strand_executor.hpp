#pragma once
// Internal to server/net: the Executor the game logic gets from Network::make_strand().

#include <memory>

#include <boost/asio/io_context.hpp>

#include "server/net/shared_state.hpp"

namespace arbiter::server::net::detail {

/// A new strand on `ioc`; exceptions from its tasks are logged through `state`, never thrown
/// out of the io_context.
std::shared_ptr<Executor> make_strand_executor(boost::asio::io_context& ioc,
                                               std::shared_ptr<SharedState> state);

}  // namespace arbiter::server::net::detail
