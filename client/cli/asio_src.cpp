// Asio and Beast compiled once for a program that does not link the server's arbiter_net
// (STYLE: separate compilation; the definitions are set PUBLIC on arbiter_ws_client).
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
