#include "net_fixture.hpp"

#include <future>
#include <sstream>
#include <stdexcept>

namespace arbiter::test {

void RecordingPeers::record(const std::shared_ptr<Peer>& peer, std::string event) {
    {
        std::lock_guard lock(mutex_);
        events_[peer->id()].push_back(std::move(event));
    }
    changed_.notify_all();
}

void RecordingPeers::on_open(const std::shared_ptr<Peer>& peer) {
    {
        std::lock_guard lock(mutex_);
        order_.push_back(peer->id());
        peers_[peer->id()] = peer;
    }
    record(peer, "open");
}

void RecordingPeers::on_message(const std::shared_ptr<Peer>& peer, std::string_view text) {
    {
        std::lock_guard lock(mutex_);
        if (std::exchange(in_call_[peer->id()], true)) {
            events_[peer->id()].push_back("overlap");
        }
    }
    record(peer, "message:" + std::string(text.substr(0, 32)));
    std::istringstream words{std::string(text)};
    std::string command;
    words >> command;
    if (command == "flood") {
        std::size_t count = 0;
        std::size_t size = 0;
        words >> count >> size;
        const auto frame = std::make_shared<const std::string>(size, 'x');
        std::size_t accepted = 0;
        while (accepted < count && peer->send(frame)) {
            ++accepted;
        }
        std::lock_guard lock(mutex_);
        flood_accepted_ = accepted;
    } else if (command == "close") {
        peer->send(std::make_shared<const std::string>("bye"));
        peer->close(CloseCode::normal, "done");
    } else if (command == "throw") {
        std::lock_guard lock(mutex_);
        in_call_[peer->id()] = false;
        throw std::runtime_error("handler bug");
    } else {
        peer->send(std::make_shared<const std::string>(text));
    }
    std::lock_guard lock(mutex_);
    in_call_[peer->id()] = false;
}

void RecordingPeers::on_too_large(const std::shared_ptr<Peer>& peer) {
    record(peer, "too_large");
}

void RecordingPeers::on_close(const std::shared_ptr<Peer>& peer) {
    record(peer, "close");
}

std::vector<std::string> RecordingPeers::events(std::size_t index) const {
    std::lock_guard lock(mutex_);
    if (index >= order_.size()) {
        return {};
    }
    return events_.at(order_[index]);
}

std::shared_ptr<Peer> RecordingPeers::peer(std::size_t index) const {
    std::lock_guard lock(mutex_);
    return index < order_.size() ? peers_.at(order_[index]) : nullptr;
}

std::size_t RecordingPeers::opens() const {
    std::lock_guard lock(mutex_);
    return order_.size();
}

std::size_t RecordingPeers::closes() const {
    std::lock_guard lock(mutex_);
    std::size_t closes = 0;
    for (const auto& [id, events] : events_) {
        closes += static_cast<std::size_t>(std::count(events.begin(), events.end(), "close"));
    }
    return closes;
}

std::size_t RecordingPeers::flood_accepted() const {
    std::lock_guard lock(mutex_);
    return flood_accepted_;
}

bool RecordingPeers::wait(const std::function<bool()>& predicate,
                          std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!predicate()) {
        std::unique_lock lock(mutex_);
        if (changed_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() +
                                                             std::chrono::milliseconds(20))) ==
                std::cv_status::timeout &&
            std::chrono::steady_clock::now() >= deadline) {
            lock.unlock();
            return predicate();
        }
    }
    return true;
}

TestHttp::~TestHttp() {
    for (auto& thread : threads_) {
        thread.join();
    }
}

void TestHttp::handle(const HttpRequest& request, Respond respond) {
    if (request.target == "/hello") {
        return respond(
            {200,
             "text/plain; charset=utf-8",
             "hello from " + request.remote_address + (request.loopback ? " loopback" : " remote"),
             {{"X-Test", "yes"}}});
    }
    if (request.target == "/client") {
        return respond({200,
                        "text/plain; charset=utf-8",
                        request.client.key + (request.client.local ? " local" : " remote"),
                        {}});
    }
    if (request.target == "/echo") {
        return respond({200, "application/octet-stream", request.method + " " + request.body, {}});
    }
    if (request.target == "/throw") {
        throw std::runtime_error("http handler bug");
    }
    if (request.target == "/later") {
        std::lock_guard lock(threads_mutex_);
        threads_.emplace_back([respond = std::move(respond)] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            respond({200, "text/plain; charset=utf-8", "later", {}});
        });
        return;
    }
    if (request.target == "/answer-twice") {
        respond({200, "text/plain; charset=utf-8", "first", {}});
        return respond({500, "text/plain; charset=utf-8", "second", {}});
    }
    respond({404, "text/plain; charset=utf-8", "not found\n", {}});
}

void NetTest::start(unsigned threads, std::function<void()> on_signal) {
    config_.log = [this](std::string_view line) {
        std::lock_guard lock(logged_mutex_);
        logged_.emplace_back(line);
    };
    config_.threads = threads;
    network_ = std::make_unique<Network>(config_, peers_, http_);
    runner_ = std::thread([this, on_signal = std::move(on_signal)] { network_->run(on_signal); });
}

bool NetTest::stop_and_join() {
    if (!runner_.joinable()) {
        return true;
    }
    network_->stop();
    auto joined = std::async(std::launch::async, [this] { runner_.join(); });
    return joined.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
}

void NetTest::TearDown() {
    ASSERT_TRUE(stop_and_join());
    network_.reset();
}

}  // namespace arbiter::test
