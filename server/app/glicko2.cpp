#include "server/app/glicko2.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/core/assert.hpp"

namespace arbiter::server::app::glicko2 {

namespace {

// Step 2: the Glicko-2 scale is the Glicko scale less 1500, divided by 400 / ln(10).
constexpr double kScale = 173.7178;
constexpr double kCentre = 1500.0;
// The volatility iteration converges in a handful of steps; this only bounds a float mishap.
constexpr int kMaxIterations = 100;

double to_mu(double rating) {
    return (rating - kCentre) / kScale;
}
double to_phi(double deviation) {
    return deviation / kScale;
}

// g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)
double g(double phi) {
    return 1.0 / std::sqrt(1.0 + 3.0 * phi * phi / (std::numbers::pi * std::numbers::pi));
}

// E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))
double expected_score(double mu, double mu_j, double phi_j) {
    return 1.0 / (1.0 + std::exp(-g(phi_j) * (mu - mu_j)));
}

// Step 5: the new volatility, by the Illinois algorithm on f(x), as the paper's 2013 revision
// gives it.
double new_volatility(double phi, double sigma, double delta, double v, const Config& config) {
    const double a = std::log(sigma * sigma);
    const double tau2 = config.tau * config.tau;
    const auto f = [&](double x) {
        const double ex = std::exp(x);
        const double denominator = phi * phi + v + ex;
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * denominator * denominator) -
               (x - a) / tau2;
    };
    double lower = a;
    double upper = 0.0;
    if (delta * delta > phi * phi + v) {
        upper = std::log(delta * delta - phi * phi - v);
    } else {
        int k = 1;
        while (f(a - k * config.tau) < 0.0 && k < kMaxIterations) {
            ++k;
        }
        upper = a - k * config.tau;
    }
    double f_lower = f(lower);
    double f_upper = f(upper);
    for (int i = 0; i < kMaxIterations && std::abs(upper - lower) > config.epsilon; ++i) {
        const double c = lower + (lower - upper) * f_lower / (f_upper - f_lower);
        const double f_c = f(c);
        if (f_c * f_upper <= 0.0) {
            lower = upper;
            f_lower = f_upper;
        } else {
            f_lower /= 2.0;
        }
        upper = c;
        f_upper = f_c;
    }
    return std::exp(lower / 2.0);
}

}  // namespace

Rating rate(const Rating& player, std::span<const GameResult> games, const Config& config) {
    if (games.empty()) {
        return after_idle(player, 1.0, config);
    }
    const double mu = to_mu(player.rating);
    const double phi = to_phi(player.deviation);
    // Step 3 and 4: the estimated variance v of the rating from the games alone, and the
    // estimated improvement delta.
    double inverse_v = 0.0;
    double improvement = 0.0;
    for (const GameResult& game : games) {
        ARBITER_ASSERT(game.score >= 0.0 && game.score <= 1.0);
        const double mu_j = to_mu(game.opponent.rating);
        const double phi_j = to_phi(game.opponent.deviation);
        const double expected = expected_score(mu, mu_j, phi_j);
        inverse_v += g(phi_j) * g(phi_j) * expected * (1.0 - expected);
        improvement += g(phi_j) * (game.score - expected);
    }
    const double v = 1.0 / inverse_v;
    const double delta = v * improvement;
    // Step 5-7.
    const double sigma = new_volatility(phi, player.volatility, delta, v, config);
    const double phi_star = std::sqrt(phi * phi + sigma * sigma);
    const double new_phi = 1.0 / std::sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    const double new_mu = mu + new_phi * new_phi * improvement;
    // Step 8.
    return Rating{kCentre + kScale * new_mu, kScale * new_phi, sigma};
}

Rating after_idle(const Rating& player, double periods, const Config& config) {
    if (!(periods > 0.0)) {
        return player;
    }
    const double phi = to_phi(player.deviation);
    const double grown = std::sqrt(phi * phi + periods * player.volatility * player.volatility);
    Rating out = player;
    out.deviation = std::min(kScale * grown, std::max(config.initial.deviation, player.deviation));
    return out;
}

}  // namespace arbiter::server::app::glicko2
