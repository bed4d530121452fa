package io.amlease.it.field;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The field cluster itself, started by hand as the README's "Start the field cluster by hand" says:
 * its command runs verbatim from the checkout, in a network namespace of its own, and the commands
 * the README types on its standard input are typed here. Separate daemons, each node as its own
 * user, and a node partition that is real: the ResourceManager expires the node while the others run
 * on, and takes it back after the heal.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FieldClusterIT {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern NODE_USER = Pattern.compile("node (\\d+) runs as user (\\S+),");
    private static Process launcher;
    private static Writer stdin;
    /** Every line the launcher printed so far. */
    private static final List<String> out = new ArrayList<>();

    /** The README's section on starting the field cluster by hand. */
    private static String section() throws Exception {
        String readme = Files.readString(REPO.resolve("README.md"));
        int start = readme.indexOf("### Start the field cluster by hand");
        assertThat(start).as("README section").isNotNegative();
        return readme.substring(start, readme.indexOf("\n##", start + 4));
    }

    /** The {@code lang} code block of the section, as the user would copy it. */
    private static String block(String lang) throws Exception {
        String s = section();
        int start = s.indexOf("```" + lang + "\n") + lang.length() + 4;
        return s.substring(start, s.indexOf("```", start));
    }

    @BeforeAll
    static void start() throws Exception {
        String command = block("sh").strip();
        assertThat(command).isEqualTo("bin/amlease field-cluster");
        launcher = new ProcessBuilder("bash", "-c", command).directory(REPO.toFile())
                .redirectErrorStream(true).start();
        stdin = new OutputStreamWriter(launcher.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (out) {
                        out.add(line);
                    }
                }
            } catch (java.io.IOException e) {
                // The launcher is gone; its exit status tells.
            }
        }, "field-cluster-output");
        reader.setDaemon(true);
        reader.start();
        await("the field cluster up").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .failFast(() -> !launcher.isAlive()).until(() -> output().contains("field cluster up: 3 nodes, "
                        + "node expiry 10s"));
        await().atMost(Duration.ofSeconds(5)).until(() -> output().contains("quit "));
    }

    @AfterAll
    static void stop() throws Exception {
        if (launcher != null && launcher.isAlive()) {
            launcher.destroy();
            if (!launcher.waitFor(60, TimeUnit.SECONDS)) {
                launcher.destroyForcibly();
            }
        }
    }

    private static String output() {
        synchronized (out) {
            return String.join("\n", out);
        }
    }

    /** Types {@code command} and returns what it printed, up to its {@code ok:} (or {@code error:}). */
    private static String type(String command) throws Exception {
        int from;
        synchronized (out) {
            from = out.size();
        }
        stdin.write(command + "\n");
        stdin.flush();
        await(command).atMost(Duration.ofSeconds(60)).failFast(() -> !launcher.isAlive())
                .until(() -> since(from).contains("ok: " + command) || since(from).contains("error: "));
        String printed = since(from);
        assertThat(printed).as(command).doesNotContain("error: ");
        return printed.substring(0, printed.indexOf("ok: " + command));
    }

    private static String since(int from) {
        synchronized (out) {
            return String.join("\n", out.subList(from, out.size()));
        }
    }

    private static String stateOf(int node) throws Exception {
        Matcher m = Pattern.compile("node " + node + " (\\w+)").matcher(type("nodes"));
        return m.find() ? m.group(1) : "";
    }

    @Test
    @Order(1)
    void eachNodeManagerRunsAsItsNodesOwnUserAndTheEnsembleHasALeader() throws Exception {
        Matcher m = NODE_USER.matcher(output());
        List<String> users = new ArrayList<>();
        while (m.find()) {
            users.add(m.group(2));
        }
        assertThat(users).hasSize(3).doesNotHaveDuplicates();
        for (String user : users) {
            assertThat(ProcessHandle.allProcesses().filter(h -> h.info().user().orElse("").equals(user))
                    .anyMatch(h -> h.info().arguments().map(List::of).orElse(List.of()).contains(
                            "org.apache.hadoop.yarn.server.nodemanager.NodeManager")))
                    .as("a NodeManager runs as %s", user).isTrue();
        }
        assertThat(type("zk").strip().split(" ")).containsExactlyInAnyOrder("leader", "follower", "follower");
    }

    /**
     * The README's commands, typed as written: node 2 partitioned is LOST while the others run
     * (asked with {@code nodes} until it is, as a user would), the heal brings it back, and
     * {@code quit} stops the cluster and exits 0.
     */
    @Test
    @Order(2) // last: it quits
    void theReadmeSessionPartitionsANodeHealsItAndQuits() throws Exception {
        List<String> typed = block("text").lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        assertThat(typed).containsExactly("nodes", "partition 2", "nodes", "heal", "nodes", "quit");
        assertThat(type(typed.get(0))).contains("node 1 RUNNING", "node 2 RUNNING", "node 3 RUNNING");
        type(typed.get(1));
        await("the RM expires node 2").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                .until(() -> stateOf(2).equals("LOST"));
        assertThat(type(typed.get(2))).contains("node 1 RUNNING", "node 2 LOST", "node 3 RUNNING");
        type(typed.get(3));
        await("node 2 re-registers after the heal").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1)).until(() -> stateOf(2).equals("RUNNING"));
        assertThat(type(typed.get(4))).contains("node 1 RUNNING", "node 2 RUNNING", "node 3 RUNNING");

        stdin.write(typed.get(5) + "\n");
        stdin.flush();
        assertThat(launcher.waitFor(90, TimeUnit.SECONDS)).as(output()).isTrue();
        assertThat(launcher.exitValue()).as(output()).isZero();
        assertThat(output()).contains("stopping the field cluster");
    }
}
