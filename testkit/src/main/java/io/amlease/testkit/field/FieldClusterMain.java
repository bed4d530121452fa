package io.amlease.testkit.field;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * The field cluster started by hand ({@code bin/amlease field-cluster}, as root), for one's own
 * experiments: it prints where everything is and how to enter its network namespace, then takes
 * faults as commands on standard input, one per line, until {@code quit} or the end of input.
 *
 * <p>Exit status: 0 after {@code quit} or end of input (the cluster stopped), 2 on a bad flag, 1 if
 * the cluster cannot start.
 */
public final class FieldClusterMain {
    static final String HELP = """
            commands (N is a node number, 1-based):
              nodes                 the RM's view of every node (RUNNING, LOST, ...)
              partition N           node N cut off from everyone
              rm-only N             node N cut off from the ResourceManager only
              zk-only N             node N cut off from ZooKeeper only
              freeze N | thaw N     SIGSTOP / SIGCONT of every process of node N
              crash N               SIGKILL of every process of node N, its NodeManager too
              restart-nm N          start node N's NodeManager again (with recovery)
              kill-rm | start-rm    kill -9 the ResourceManager / start it again
              heal                  remove every cut
              zk                    each ZooKeeper server's mode (leader, follower)
              isolate-zk S          ZooKeeper server S (1-3) cut off from its peers, not its clients
              quit                  stop the cluster and exit""";
    private static final String USAGE = "usage: bin/amlease field-cluster [--nodes N] [--node-expiry DURATION]"
            + " (as root; --jars FILE is set by the launcher)";

    private FieldClusterMain() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                System.out, System.err));
    }

    static int run(String[] args, BufferedReader in, PrintStream out, PrintStream err) throws Exception {
        int nodes = 3;
        Duration expiry = Duration.ofSeconds(10);
        Path jars = null;
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            out.println(USAGE);
            out.println(HELP);
            return 0;
        }
        try {
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                String value = i + 1 < args.length ? args[++i] : null;
                if (value == null) {
                    throw new IllegalArgumentException(flag + " needs a value");
                }
                switch (flag) {
                    case "--nodes" -> nodes = number(flag, value);
                    case "--node-expiry" -> expiry = duration(value);
                    case "--jars" -> jars = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown flag " + flag);
                }
            }
            if (jars == null || !Files.isRegularFile(jars)) {
                throw new IllegalArgumentException("--jars must name the class-path file of the daemons' jars: "
                        + jars);
            }
            if (expiry.compareTo(Duration.ofSeconds(2)) < 0) {
                throw new IllegalArgumentException("--node-expiry must be at least 2s: " + value(expiry));
            }
        } catch (IllegalArgumentException e) {
            err.println("field-cluster: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        FieldCluster.Options options;
        try {
            options = FieldCluster.Options.jarsListedIn(jars, nodes, expiry);
        } catch (IllegalArgumentException e) {
            err.println("field-cluster: --" + e.getMessage()); // "nodes must be within [1, 8]: 0"
            return 2;
        }
        if (!NetNamespace.isPrivate()) {
            err.println("field-cluster: not in a network namespace of its own (start it with bin/amlease field-cluster)");
            return 2;
        }
        err.printf("field-cluster: starting %d nodes (about 30 s)…%n", nodes);
        FieldCluster cluster;
        try {
            cluster = FieldCluster.start(options);
        } catch (IOException | RuntimeException e) {
            err.println("field-cluster: cannot start the cluster: " + e.getMessage());
            return 1;
        }
        // Ctrl-C (or a kill) stops the daemons too, not only quit.
        Thread hook = new Thread(() -> closeQuietly(cluster), "field-cluster-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.printf("field cluster up: %d nodes, node expiry %s%n", nodes, value(expiry));
            out.println("  conf dir (HADOOP_CONF_DIR): " + cluster.confDir());
            out.println("  ZooKeeper:                  " + cluster.zkConnectString());
            out.println("  ResourceManager web:        http://" + cluster.rmWebAddress());
            out.println("  daemon logs:                " + cluster.logs());
            out.println("  enter its network namespace from another shell:");
            out.println("    nsenter --net=/proc/" + ProcessHandle.current().pid() + "/ns/net bash");
            for (FieldCluster.Node n : cluster.nodes()) {
                out.printf("  node %d runs as user %s, NodeManager 127.0.0.1:%d%n", n.index(),
                        n.user().name(), n.rpcPort());
            }
            out.println(HELP);
            out.flush();
            String line;
            while ((line = in.readLine()) != null) {
                if (!command(cluster, line.strip(), out)) {
                    break;
                }
                out.flush();
            }
            out.println("stopping the field cluster");
            out.flush();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is already stopping the cluster.
            }
            closeQuietly(cluster);
        }
        return 0;
    }

    private static void closeQuietly(FieldCluster cluster) {
        synchronized (FieldClusterMain.class) {
            try {
                cluster.close();
            } catch (Exception e) {
                System.err.println("field-cluster: stopping: " + e);
            }
        }
    }

    /** Runs one command; false for {@code quit}. A bad command is said so, and the loop goes on. */
    private static boolean command(FieldCluster cluster, String line, PrintStream out) throws Exception {
        List<String> words = List.of(line.split("\\s+"));
        String verb = words.get(0).toLowerCase(Locale.ROOT);
        if (verb.isEmpty()) {
            return true;
        }
        try {
            switch (verb) {
                case "quit", "exit" -> {
                    return false;
                }
                case "nodes" -> {
                    for (FieldCluster.Node n : cluster.nodes()) {
                        out.printf("node %d %s%n", n.index(), cluster.nodeState(n).orElse("UNKNOWN"));
                    }
                }
                case "heal" -> cluster.heal();
                case "zk" -> out.println(String.join(" ", cluster.zkModes()));
                case "isolate-zk" -> cluster.isolateZooKeeper(zkServer(words));
                case "kill-rm" -> cluster.killResourceManager();
                case "start-rm" -> cluster.startResourceManager();
                case "partition", "rm-only", "zk-only", "freeze", "thaw", "crash", "restart-nm" -> {
                    FieldCluster.Node n = node(cluster, words);
                    switch (verb) {
                        case "partition" -> cluster.partition(n);
                        case "rm-only" -> cluster.partitionFromResourceManager(n);
                        case "zk-only" -> cluster.partitionFromZooKeeper(n);
                        case "freeze" -> cluster.freeze(n);
                        case "thaw" -> cluster.thaw(n);
                        case "crash" -> cluster.crash(n);
                        default -> cluster.restartNodeManager(n);
                    }
                }
                case "help" -> out.println(HELP);
                default -> throw new IllegalArgumentException("unknown command '" + verb + "' (help lists them)");
            }
            out.println("ok: " + line);
        } catch (IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
        }
        return true;
    }

    private static int zkServer(List<String> words) {
        if (words.size() != 2 || !words.get(1).matches("\\d+") || Integer.parseInt(words.get(1)) < 1
                || Integer.parseInt(words.get(1)) > 3) {
            throw new IllegalArgumentException("isolate-zk needs a ZooKeeper server number within [1, 3]");
        }
        return Integer.parseInt(words.get(1));
    }

    private static FieldCluster.Node node(FieldCluster cluster, List<String> words) {
        int count = cluster.nodes().size();
        if (words.size() != 2 || !words.get(1).matches("\\d+")) {
            throw new IllegalArgumentException(words.get(0) + " needs a node number within [1, " + count + "]");
        }
        int n = Integer.parseInt(words.get(1));
        if (n < 1 || n > count) {
            throw new IllegalArgumentException("node must be within [1, " + count + "]: " + n);
        }
        return cluster.node(n);
    }

    private static int number(String flag, String value) {
        if (!value.matches("\\d{1,9}")) {
            throw new IllegalArgumentException(flag + " must be a number: " + value);
        }
        return Integer.parseInt(value);
    }

    /** {@code 10s}, {@code 500ms}, {@code 1m}, or an ISO-8601 duration. */
    private static Duration duration(String s) {
        try {
            if (s.matches("\\d+ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            } else if (s.matches("\\d+s")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
            } else if (s.matches("\\d+m")) {
                return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            }
            return Duration.parse(s);
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("--node-expiry must be a duration such as 10s: " + s);
        }
    }

    private static String value(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
