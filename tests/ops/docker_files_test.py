#!/usr/bin/env python3
"""Checks that docker/ stays true to the real build (no Docker engine runs on our machines).

- the build stage installs the packages scripts/install-deps.sh installs (plus nodejs/npm, which
  the script adds when Node is missing, and ca-certificates for npm);
- every COPY source exists in the repository (or in an earlier stage's known outputs);
- the runtime stage installs exactly the libraries the server links (ldd, dpkg -S);
- the runtime stage runs a binary the build produces, with flags `arbiter-server --help` lists;
- HEALTHCHECK asks GET /healthz, the runtime stage runs as a non-root USER with a VOLUME;
- docker-compose.yml builds this Dockerfile with a named volume and a published port;
- docker/arbiter.service runs flags that exist, as a dedicated user with Restart=on-failure.

Usage: docker_files_test.py REPO_ROOT ARBITER_SERVER_BINARY
"""
import json
import re
import shlex
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

REPO = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
SERVER = sys.argv[2] if len(sys.argv) > 2 else str(REPO / "build/debug-asan/bin/arbiter-server")


def dockerfile_instructions(text):
    """(instruction, argument) pairs, with backslash continuations joined and comments dropped."""
    joined, current = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        joined.append(current + stripped)
        current = ""
    out = []
    for line in joined:
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def stages(instructions):
    """Splits instructions at FROM: [(from_argument, [instructions])]."""
    result = []
    for word, rest in instructions:
        if word == "FROM":
            result.append((rest, []))
        elif result:
            result[-1][1].append((word, rest))
    return result


def apt_packages(run_argument):
    """Packages named after `apt-get install` options in one RUN command."""
    packages = set()
    for command in re.split(r"&&|;", run_argument):
        words = shlex.split(command)
        if "apt-get" in words and "install" in words:
            for word in words[words.index("install") + 1:]:
                if not word.startswith("-"):
                    packages.add(word)
    return packages


def install_script_packages():
    """(always, only_when_node_is_missing) from scripts/install-deps.sh."""
    text = (REPO / "scripts/install-deps.sh").read_text()
    block = re.search(r"^packages=\((.*?)^\)", text, re.S | re.M)
    assert block, "no packages=( ... ) array in install-deps.sh"
    always = set(block.group(1).split())
    node = re.search(r"missing\+=\(([^)]*)\)\s*\n\s*fi", text)
    assert node, "no node fallback (missing+=(nodejs npm)) in install-deps.sh"
    return always, set(node.group(1).split())


def exec_form(argument):
    """The words of a JSON-array (exec form) instruction, or the shell words otherwise."""
    if argument.startswith("["):
        return json.loads(argument)
    return shlex.split(argument)


def flags_of(words):
    return [w.split("=", 1)[0] for w in words if w.startswith("--")]


def server_help():
    result = subprocess.run([SERVER, "--help"], capture_output=True, text=True, check=True)
    return set(re.findall(r"--[a-z][a-z0-9-]*", result.stdout))


class Dockerfile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        text = (REPO / "docker/Dockerfile").read_text()
        cls.instructions = dockerfile_instructions(text)
        cls.stages = stages(cls.instructions)
        cls.help = server_help()

    def test_two_stages_on_bookworm(self):
        self.assertEqual(len(self.stages), 2)
        self.assertRegex(self.stages[0][0], r"^debian:bookworm\s+AS\s+build$")
        self.assertEqual(self.stages[1][0], "debian:bookworm-slim")

    def test_build_stage_installs_what_install_deps_installs(self):
        always, node = install_script_packages()
        installed = set()
        for word, rest in self.stages[0][1]:
            if word == "RUN":
                installed |= apt_packages(rest)
        self.assertEqual(always - installed, set(), "missing from the Dockerfile")
        extra = installed - always - node - {"ca-certificates"}
        self.assertEqual(extra, set(), "installed by the Dockerfile but not by install-deps.sh")
        self.assertTrue(node <= installed, "the image has no Node to build the web client")

    def test_every_copy_source_exists(self):
        outputs = {"/src/build/release/bin/arbiter-server", "/src/client/web/dist"}
        copies = 0
        for _, instructions in self.stages:
            for word, rest in instructions:
                if word != "COPY":
                    continue
                words = shlex.split(rest)
                from_stage = [w for w in words if w.startswith("--from=")]
                sources = [w for w in words if not w.startswith("--")][:-1]
                self.assertTrue(sources, rest)
                for source in sources:
                    copies += 1
                    if from_stage:
                        self.assertIn(source, outputs, f"COPY --from of an unknown output: {rest}")
                    else:
                        self.assertTrue((REPO / source).exists(), f"COPY source missing: {source}")
        self.assertGreater(copies, 5)

    def test_build_commands_name_real_presets_targets_and_scripts(self):
        presets = json.loads((REPO / "CMakePresets.json").read_text())
        names = {p["name"] for p in presets["configurePresets"]}
        runs = " ".join(rest for word, rest in self.stages[0][1] if word == "RUN")
        for preset in re.findall(r"--preset\s+(\S+)", runs):
            self.assertIn(preset, names)
        self.assertIn("--target arbiter-server", runs)
        self.assertIn("add_executable(arbiter-server", (REPO / "server/app/CMakeLists.txt").read_text())
        for option in re.findall(r"-D(ARBITER_[A-Z_]+)=", runs):
            self.assertIn(f"option({option} ", (REPO / "CMakeLists.txt").read_text())
        for script in re.findall(r"\./(\S+\.sh)", runs):
            self.assertTrue((REPO / script).exists(), script)

    def test_runtime_runs_the_built_binary_with_flags_it_knows(self):
        runtime = dict((w, r) for w, r in self.stages[1][1] if w in ("ENTRYPOINT", "CMD"))
        entry = exec_form(runtime["ENTRYPOINT"])
        self.assertEqual(entry, ["/usr/local/bin/arbiter-server"])
        copied = [r for w, r in self.stages[1][1] if w == "COPY" and entry[0] in r]
        self.assertTrue(copied, "the entrypoint binary is never copied in")
        words = exec_form(runtime["CMD"])
        flags = flags_of(words)
        self.assertIn("--bind", flags)
        self.assertEqual(words[words.index("--bind") + 1], "0.0.0.0")
        for flag in flags:
            self.assertIn(flag, self.help, f"arbiter-server --help does not list {flag}")
        web_root = words[words.index("--web-root") + 1]
        self.assertTrue(any(web_root in r for w, r in self.stages[1][1] if w == "COPY"))

    def test_healthcheck_asks_healthz_on_the_served_port(self):
        checks = [r for w, r in self.stages[1][1] if w == "HEALTHCHECK"]
        self.assertEqual(len(checks), 1)
        self.assertIn("/healthz", checks[0])
        port = exec_form(dict(self.stages[1][1])["CMD"])
        served = port[port.index("--port") + 1]
        self.assertIn(f"/{served}", checks[0])
        self.assertIn(("EXPOSE", served), self.stages[1][1])

    def test_runtime_is_non_root_with_a_volume(self):
        users = [r for w, r in self.stages[1][1] if w == "USER"]
        self.assertTrue(users, "no USER in the runtime stage")
        self.assertNotIn(users[-1].split(":")[0], ("root", "0"))
        volumes = [r for w, r in self.stages[1][1] if w == "VOLUME"]
        self.assertTrue(volumes)
        database = exec_form(dict(self.stages[1][1])["CMD"])
        db = database[database.index("--db") + 1]
        self.assertTrue(any(db.startswith(v.strip('[]" ') + "/") for v in volumes))


def linked_packages(binary):
    """Debian packages that own the shared libraries `binary` links (ldd + dpkg -S)."""
    listing = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    packages = set()
    for library in re.findall(r"=> (/\S+)", listing):
        for path in (str(Path(library).resolve()), library):
            owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
            if owner.returncode == 0:
                packages.add(owner.stdout.split(":")[0])
                break
        else:
            raise AssertionError(f"no Debian package owns {library}")
    return packages


class RuntimeLibraries(unittest.TestCase):
    # In every Debian image already, or only in the sanitizer build the test runs against.
    BASE = {"libc6", "libstdc++6", "libgcc-s1", "zlib1g"}
    SANITIZERS = {"libasan8", "libubsan1", "libtsan2"}
    # Linked by the release build the image makes, not by a sanitizer build (CMakeLists.txt:
    # sanitizers bring their own malloc).
    RELEASE_ONLY = {"libjemalloc2"}

    def test_runtime_stage_installs_every_library_the_server_links(self):
        if not shutil.which("ldd") or not shutil.which("dpkg"):
            self.skipTest("ldd and dpkg are needed")
        text = (REPO / "docker/Dockerfile").read_text()
        runtime = stages(dockerfile_instructions(text))[1][1]
        installed = set()
        for word, rest in runtime:
            if word == "RUN":
                installed |= apt_packages(rest)
        linked = linked_packages(SERVER)
        needed = linked - self.BASE - self.SANITIZERS
        if linked & self.SANITIZERS:
            needed |= self.RELEASE_ONLY
        self.assertEqual(needed - installed, set(), "linked but not installed in the runtime stage")
        self.assertEqual(installed - needed, set(), "installed in the runtime stage but not linked")


class Compose(unittest.TestCase):
    def test_builds_the_dockerfile_with_a_named_volume_and_a_port(self):
        text = (REPO / "docker/docker-compose.yml").read_text()
        self.assertRegex(text, r"context:\s*\.\.\s*\n\s*dockerfile:\s*docker/Dockerfile")
        self.assertRegex(text, r'-\s*"\d+:8080"')
        volume = re.search(r"-\s*([a-z][a-z0-9_-]*):/var/lib/arbiter", text)
        self.assertTrue(volume, "no named volume mounted on /var/lib/arbiter")
        self.assertRegex(text, r"\nvolumes:\s*\n\s+" + re.escape(volume.group(1)) + ":")


class ClusterCompose(unittest.TestCase):
    """docker-compose.cluster.yml: PostgreSQL, Redis, three nodes on them, nginx over the nodes."""

    @classmethod
    def setUpClass(cls):
        cls.compose = (REPO / "docker/docker-compose.cluster.yml").read_text()
        cls.nginx = (REPO / "docker/nginx-cluster.conf").read_text()
        cls.help = server_help()
        cls.nodes = {}
        for name, command in re.findall(r"\n  ([a-z][a-z0-9-]*):\n    <<: \*node\n    command: (\[.*?\])",
                                        cls.compose, re.S):
            cls.nodes[name] = json.loads(command)

    def test_three_nodes_run_flags_that_exist(self):
        self.assertEqual(len(self.nodes), 3, self.nodes)
        for name, command in self.nodes.items():
            for flag in flags_of(command):
                self.assertIn(flag, self.help, f"{name}: arbiter-server --help does not list {flag}")

    def test_each_node_has_its_own_id_on_one_database_and_one_bus(self):
        ids, dbs, buses = set(), set(), set()
        for name, command in self.nodes.items():
            ids.add(command[command.index("--node-id") + 1])
            dbs.add(command[command.index("--db") + 1])
            buses.add(command[command.index("--bus") + 1])
        self.assertEqual(ids, set(self.nodes))
        self.assertEqual(len(dbs), 1)
        self.assertTrue(next(iter(dbs)).startswith("postgresql://"))
        self.assertEqual(buses, {"redis://redis:6379"})
        self.assertRegex(self.compose, r"\n  postgres:\n    image: postgres:15")
        self.assertRegex(self.compose, r"\n  redis:\n    image: redis:7")

    def test_nginx_spreads_over_every_node_without_stickiness(self):
        upstream = re.search(r"upstream arbiter \{(.*?)\}", self.nginx, re.S)
        self.assertTrue(upstream)
        self.assertIn("least_conn;", upstream.group(1))
        self.assertNotIn("ip_hash", upstream.group(1))
        servers = set(re.findall(r"server ([a-z0-9-]+):8080", upstream.group(1)))
        self.assertEqual(servers, set(self.nodes))
        ws = re.search(r"location = /ws \{(.*?)\}", self.nginx, re.S)
        self.assertTrue(ws)
        self.assertIn("proxy_set_header Upgrade $http_upgrade", ws.group(1))
        self.assertRegex(self.compose, r"nginx-cluster.conf:/etc/nginx/conf.d/default.conf")


class Nginx(unittest.TestCase):
    def test_upgrades_websockets_on_ws_and_proxies_the_rest(self):
        text = (REPO / "docker/nginx.conf").read_text()
        ws = re.search(r"location = /ws \{(.*?)\}", text, re.S)
        self.assertTrue(ws)
        self.assertIn("proxy_http_version 1.1", ws.group(1))
        self.assertIn("proxy_set_header Upgrade $http_upgrade", ws.group(1))
        self.assertIn("proxy_set_header Connection $connection_upgrade", ws.group(1))
        self.assertRegex(text, r"location / \{[^}]*proxy_pass http://arbiter")
        self.assertRegex(text, r"listen 443 ssl")


class SystemdUnit(unittest.TestCase):
    def test_runs_flags_that_exist_as_a_dedicated_user(self):
        text = (REPO / "docker/arbiter.service").read_text()
        settings = {}
        for line in text.splitlines():
            if "=" in line and not line.startswith("#"):
                key, _, value = line.partition("=")
                settings.setdefault(key.strip(), []).append(value.strip())
        command = shlex.split(settings["ExecStart"][0])
        self.assertTrue(command[0].endswith("/arbiter-server"))
        help_flags = server_help()
        for flag in flags_of(command):
            self.assertIn(flag, help_flags, f"arbiter-server --help does not list {flag}")
        self.assertNotIn(settings["User"][0], ("root", "0"))
        self.assertEqual(settings["Restart"], ["on-failure"])
        self.assertEqual(settings["StateDirectory"], ["arbiter"])
        db = command[command.index("--db") + 1]
        self.assertTrue(db.startswith("/var/lib/arbiter/"))
        for hardening in ("NoNewPrivileges", "ProtectSystem", "PrivateTmp", "ProtectHome"):
            self.assertIn(hardening, settings)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
