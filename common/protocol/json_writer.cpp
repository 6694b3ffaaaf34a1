#include "common/protocol/json_writer.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::protocol::detail {

std::string escaped(std::string_view value) {
    return nlohmann::json(std::string(value))
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace arbiter::protocol::detail
