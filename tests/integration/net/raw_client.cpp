#include "raw_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <random>

namespace arbiter::test {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

Socket::Socket(std::uint16_t port, int receive_buffer) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) {
        return;
    }
    if (receive_buffer > 0) {
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        close();
    }
}

Socket::~Socket() {
    close();
}

Socket::Socket(Socket&& other) noexcept : fd_(other.fd_) {
    other.fd_ = -1;
}

int Socket::tcp_state() const {
    if (fd_ < 0) {
        return -1;
    }
    tcp_info info{};
    socklen_t size = sizeof info;
    if (::getsockopt(fd_, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) {
        return -1;
    }
    return info.tcpi_state;
}

void Socket::close() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

bool Socket::write_all(std::string_view bytes) {
    while (!bytes.empty() && fd_ >= 0) {
        const auto written = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(written));
    }
    return fd_ >= 0;
}

std::string Socket::read_some(std::size_t max, std::chrono::milliseconds timeout) {
    if (fd_ < 0) {
        return {};
    }
    pollfd descriptor{fd_, POLLIN, 0};
    if (::poll(&descriptor, 1, static_cast<int>(timeout.count())) <= 0) {
        return {};
    }
    std::string bytes(max, '\0');
    const auto received = ::recv(fd_, bytes.data(), max, 0);
    bytes.resize(received > 0 ? static_cast<std::size_t>(received) : 0);
    return bytes;
}

bool Socket::read_into(std::string& buffer, std::size_t bytes, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (buffer.size() < bytes) {
        auto chunk = read_some(64 * 1024, std::chrono::milliseconds(remaining_ms(deadline)));
        if (chunk.empty()) {
            return false;
        }
        buffer += chunk;
    }
    return true;
}

std::string HttpReply::header(std::string_view name) const {
    std::size_t line_start = head.find("\r\n");
    while (line_start != std::string::npos) {
        line_start += 2;
        const auto line_end = head.find("\r\n", line_start);
        const auto line = std::string_view(head).substr(
            line_start, line_end == std::string::npos ? std::string::npos : line_end - line_start);
        const auto colon = line.find(':');
        if (colon != std::string_view::npos && iequals(line.substr(0, colon), name)) {
            auto value = line.substr(colon + 1);
            while (!value.empty() && value.front() == ' ') {
                value.remove_prefix(1);
            }
            return std::string(value);
        }
        line_start = line_end;
    }
    return {};
}

std::optional<HttpReply> read_http_reply(Socket& socket, std::string& buffer, bool head_only) {
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    std::size_t end = 0;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
        auto chunk = socket.read_some(4096, std::chrono::milliseconds(remaining_ms(deadline)));
        if (chunk.empty()) {
            return std::nullopt;
        }
        buffer += chunk;
    }
    HttpReply reply;
    reply.head = buffer.substr(0, end + 2);
    buffer.erase(0, end + 4);
    if (reply.head.size() < 12) {
        return std::nullopt;
    }
    reply.status = std::stoi(reply.head.substr(9, 3));
    const auto length_text = reply.header("Content-Length");
    const auto length = length_text.empty() || head_only ? 0 : std::stoul(length_text);
    if (!socket.read_into(buffer, length, std::chrono::milliseconds(remaining_ms(deadline)))) {
        return std::nullopt;
    }
    reply.body = buffer.substr(0, length);
    buffer.erase(0, length);
    return reply;
}

std::optional<HttpReply> http_request(std::uint16_t port, std::string_view method,
                                      std::string_view target, std::string_view body) {
    Socket socket(port);
    std::string request = std::string(method) + " " + std::string(target) +
                          " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (!body.empty()) {
        request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
    request += "\r\n";
    request += body;
    if (!socket.write_all(request)) {
        return std::nullopt;
    }
    std::string buffer;
    return read_http_reply(socket, buffer, method == "HEAD");
}

std::uint16_t Frame::close_code() const {
    if (payload.size() < 2) {
        return 1005;
    }
    return static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) |
                                      static_cast<unsigned char>(payload[1]));
}

WsClient::WsClient(std::uint16_t port, std::string_view target, int receive_buffer,
                   std::string_view extra_headers)
    : socket_(port, receive_buffer) {
    // The key need not be random for the server's sake; RFC 6455 only needs 16 bytes base64.
    const std::string request = "GET " + std::string(target) +
                                " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                                "Connection: Upgrade\r\nSec-WebSocket-Key: "
                                "dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
                                std::string(extra_headers) + "\r\n";
    if (!socket_.write_all(request)) {
        return;
    }
    if (auto reply = read_http_reply(socket_, buffer_, false)) {
        status_ = reply->status;
    }
}

bool WsClient::send_frame(std::uint8_t opcode, std::string_view payload) {
    std::string frame;
    frame.push_back(static_cast<char>(0x80 | opcode));
    const auto size = payload.size();
    if (size < 126) {
        frame.push_back(static_cast<char>(0x80 | size));
    } else if (size <= 0xFFFF) {
        frame.push_back(static_cast<char>(0x80 | 126));
        frame.push_back(static_cast<char>(size >> 8));
        frame.push_back(static_cast<char>(size & 0xFF));
    } else {
        frame.push_back(static_cast<char>(0x80 | 127));
        for (int shift = 56; shift >= 0; shift -= 8) {
            frame.push_back(static_cast<char>((size >> shift) & 0xFF));
        }
    }
    static thread_local std::mt19937 random{12345};
    char mask[4];
    for (auto& byte : mask) {
        byte = static_cast<char>(random() & 0xFF);
    }
    frame.append(mask, 4);
    for (std::size_t i = 0; i < size; ++i) {
        frame.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
    }
    return socket_.write_all(frame);
}

std::optional<Frame> WsClient::read_frame(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        auto left = [&] { return std::chrono::milliseconds(remaining_ms(deadline)); };
        if (!socket_.read_into(buffer_, 2, left())) {
            return std::nullopt;
        }
        const auto first = static_cast<unsigned char>(buffer_[0]);
        const auto second = static_cast<unsigned char>(buffer_[1]);
        std::size_t header = 2;
        std::uint64_t size = second & 0x7F;
        if (size == 126 || size == 127) {
            const std::size_t extra = size == 126 ? 2 : 8;
            if (!socket_.read_into(buffer_, 2 + extra, left())) {
                return std::nullopt;
            }
            size = 0;
            for (std::size_t i = 0; i < extra; ++i) {
                size = (size << 8) | static_cast<unsigned char>(buffer_[2 + i]);
            }
            header += extra;
        }
        if (!socket_.read_into(buffer_, header + size, left())) {
            return std::nullopt;
        }
        Frame frame{static_cast<std::uint8_t>(first & 0x0F), buffer_.substr(header, size)};
        buffer_.erase(0, header + size);
        if (frame.opcode == 0x9) {
            send_frame(0xA, frame.payload);
            continue;
        }
        if (frame.opcode == 0xA) {
            continue;
        }
        return frame;
    }
}

std::optional<std::string> WsClient::read_text(std::chrono::milliseconds timeout) {
    auto frame = read_frame(timeout);
    if (!frame || frame->opcode != 0x1) {
        return std::nullopt;
    }
    return std::move(frame->payload);
}

std::optional<std::uint16_t> WsClient::read_close(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (auto frame = read_frame(std::chrono::milliseconds(remaining_ms(deadline)))) {
        if (frame->opcode == 0x8) {
            return frame->close_code();
        }
    }
    return std::nullopt;
}

bool WsClient::close() {
    return send_frame(0x8, std::string_view("\x03\xE8", 2));
}

bool WsClient::wait_eof(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        if (socket_.read_some(4096, std::chrono::milliseconds(remaining_ms(deadline))).empty()) {
            const bool eof = Clock::now() < deadline;
            socket_.close();
            return eof;
        }
    }
    return false;
}

}  // namespace arbiter::test
