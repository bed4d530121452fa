package io.amlease.bench;

import io.amlease.lease.zk.LeaderReader;
import io.amlease.testkit.FaultProxy;
import io.amlease.testkit.ZkEnsemble;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * One contender in one torture trial: its lease path on the shared ensemble, its holders (each
 * {@link SupervisedHolder}, each reaching every server through its own {@link FaultProxy}, so that a
 * client partition cuts one holder — and its COMMAND's writer, which uses the same links — from the
 * whole ensemble), the pauses inflicted on them, and for amlease the versions of the leader node.
 */
final class TortureLane implements AutoCloseable {
  /** How long after the stop allowance a still-acting orphan is ended by the bench. */
  static final Duration SWEEP_MARGIN = Duration.ofSeconds(1);
  /** How often a deleteall is tried while holders keep creating nodes under the lease. */
  static final int DELETE_TRIES = 20;
  private static final Duration DELETE_RETRY_DELAY = Duration.ofMillis(200);

  private record Observed(History.LeaderVersion version, long nanos) {}

  final Contender contender;
  private final Path dir;
  private final String token;
  private final List<List<FaultProxy>> proxies = new ArrayList<>();
  private final List<SupervisedHolder> holders = new ArrayList<>();
  private final List<History.Pause> pauses = new CopyOnWriteArrayList<>();
  private final List<Observed> versions = new CopyOnWriteArrayList<>();
  private final Set<Long> swept = new HashSet<>();
  private final LeaderReader reader;
  private final CuratorFramework observer;
  /** The lease (or latch) path, which the deleteall fault deletes whole. */
  private final String path;
  /** Where each deletion leaves a node, so that its zxid is ZooKeeper's own. */
  private final String cuts;
  private final List<Long> deletions = new CopyOnWriteArrayList<>();
  private final Set<String> recordedCuts = new HashSet<>();
  /** Holders whose links a holder-track fault holds (guarded by this). */
  private final Set<Integer> linkFaults = new HashSet<>();
  /** The server every link is pushed to, -1 if none (guarded by this). */
  private int pushedTo = -1;

  /**
   * Sets the lane up (proxies, the data node, the leader watch); {@link #start()} starts the holders.
   */
  TortureLane(Contender c, int holderCount, ZkEnsemble ensemble, CuratorFramework observer,
      Path dir, String token, Duration t, Duration stopTimeout,
      Optional<TortureSchedule.ClockRate> clockRate, HolderClock clock) throws Exception {
    this.contender = c;
    this.dir = dir;
    this.token = token;
    this.observer = observer;
    this.path = "/torture/" + c.label();
    this.cuts = "/torture-cuts/" + c.label();
    String data = path + "-data";
    Files.createDirectories(dir);
    observer.create().creatingParentsIfNeeded().forPath(data);
    observer.create().creatingParentsIfNeeded().forPath(cuts);
    reader = new LeaderReader(observer, path);
    try {
      if (c == Contender.AMLEASE) {
        reader.watch(s -> s.info().ifPresent(info -> versions.add(new Observed(
            new History.LeaderVersion(s.mzxid(), info.epoch()), System.nanoTime()))), e -> { });
      }
      for (int h = 0; h < holderCount; h++) {
        List<FaultProxy> links = new ArrayList<>();
        proxies.add(links);
        for (int id : ensemble.ids()) {
          links.add(FaultProxy.start(address(ensemble.connectString(id))));
        }
        String connect = links.stream().map(FaultProxy::connectString)
            .collect(Collectors.joining(","));
        int holder = h;
        boolean faked = clockRate.filter(r -> r.holder() == holder).isPresent();
        holders.add(new SupervisedHolder("h" + h, dir, TortureLaunchers.of(c, connect, path, data,
            t, stopTimeout, token, faked ? Optional.of(clock.rate()) : Optional.empty()),
            faked ? clock : HolderClock.REAL));
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Starts the holders, h0 first: it usually leads first. */
  void start() {
    holders.forEach(SupervisedHolder::start);
  }

  boolean hasLeader() {
    return holders.stream().anyMatch(SupervisedHolder::acting);
  }

  /** A COMMAND of this lane has had a write accepted: its writer JVM is up and writing. */
  boolean hasWritten() {
    return ActorLogs.anyWrite(dir);
  }

  synchronized void silent(int holder) {
    linkFaults.add(holder);
    proxies.get(holder).forEach(FaultProxy::silent);
  }

  synchronized void reset(int holder) {
    linkFaults.add(holder);
    proxies.get(holder).forEach(FaultProxy::reset);
  }

  /** Ends holder {@code holder}'s link fault; a push under way still holds its other links. */
  synchronized void heal(int holder) {
    linkFaults.remove(holder);
    List<FaultProxy> links = proxies.get(holder);
    for (int i = 0; i < links.size(); i++) {
      if (pushedTo >= 0 && i != pushedTo) {
        links.get(i).reset();
      } else {
        links.get(i).heal();
      }
    }
  }

  synchronized void healAll() {
    linkFaults.clear();
    pushedTo = -1;
    proxies.forEach(links -> links.forEach(FaultProxy::heal));
  }

  /**
   * Refuses every link but the one to server {@code index} (0-based) of each holder not under a link
   * fault of its own, so that its session reconnects to that server.
   */
  synchronized void pushTo(int index) {
    pushedTo = index;
    for (int h = 0; h < proxies.size(); h++) {
      if (!linkFaults.contains(h)) {
        List<FaultProxy> links = proxies.get(h);
        for (int i = 0; i < links.size(); i++) {
          if (i != index) {
            links.get(i).reset();
          }
        }
      }
    }
  }

  /** Ends {@link #pushTo}: the links of holders not under a link fault forward again. */
  synchronized void unpush() {
    pushedTo = -1;
    for (int h = 0; h < proxies.size(); h++) {
      if (!linkFaults.contains(h)) {
        proxies.get(h).forEach(FaultProxy::heal);
      }
    }
  }

  Optional<SupervisedHolder.Suspended> suspend(int holder) throws IOException, InterruptedException {
    return holders.get(holder).suspend();
  }

  /** Stops holder {@code holder}'s process and everything it started, as a VM freeze would. */
  Optional<SupervisedHolder.Suspended> suspendTree(int holder)
      throws IOException, InterruptedException {
    return holders.get(holder).suspend(true);
  }

  /** The holder whose process last began a term and has not ended it, if any. */
  OptionalInt actingHolder() {
    return IntStream.range(0, holders.size())
        .filter(h -> holders.get(h).acting()).findFirst();
  }

  /**
   * An operator's {@code deleteall} of the lease path, done as one {@code multi} (children before
   * parents, and a node under {@link #cuts} whose czxid is the deletion's zxid) so that the history
   * knows exactly where the old incarnation ended. A holder that creates a node meanwhile makes
   * the multi fail, and so can a fault of the ensemble: it is tried again, up to
   * {@link #DELETE_TRIES} times. A multi whose answer was lost may have been applied: a cut node
   * not yet recorded says so. What it did, in words.
   */
  String deleteLease() throws Exception {
    KeeperException last = null;
    for (int attempt = 1; attempt <= DELETE_TRIES; attempt++) {
      ZooKeeper zk = observer.getZookeeperClient().getZooKeeper();
      try {
        Optional<String> applied = unrecordedCut(zk);
        if (applied.isPresent()) {
          return path + " deleted whole (its answer was lost) at zxid 0x"
              + Long.toHexString(record(zk, applied.get()));
        }
        List<String> tree;
        try {
          tree = new ArrayList<>(ZKUtil.listSubTreeBFS(zk, path));
        } catch (KeeperException.NoNodeException e) {
          return path + " was not there";
        }
        Collections.reverse(tree);
        List<Op> ops = new ArrayList<>();
        tree.forEach(n -> ops.add(Op.delete(n, -1)));
        ops.add(Op.create(cuts + "/d-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT_SEQUENTIAL));
        List<OpResult> done = zk.multi(ops);
        String cut = ((OpResult.CreateResult) done.get(done.size() - 1)).getPath();
        return path + " deleted whole (" + tree.size() + " nodes) at zxid 0x"
            + Long.toHexString(record(zk, cut.substring(cut.lastIndexOf('/') + 1)));
      } catch (KeeperException e) {
        last = e;
        if (e.code() == KeeperException.Code.CONNECTIONLOSS
            || e.code() == KeeperException.Code.SESSIONEXPIRED) {
          Waits.sleep(DELETE_RETRY_DELAY);
        }
      }
    }
    return path + " could not be deleted in " + DELETE_TRIES + " tries: " + last.code();
  }

  /** A cut node that no recorded deletion made: a multi that was applied but not answered. */
  private Optional<String> unrecordedCut(ZooKeeper zk) throws Exception {
    return zk.getChildren(cuts, false).stream().filter(c -> !recordedCuts.contains(c)).findFirst();
  }

  private long record(ZooKeeper zk, String cut) throws Exception {
    long zxid = zk.exists(cuts + "/" + cut, false).getCzxid();
    recordedCuts.add(cut);
    deletions.add(zxid);
    return zxid;
  }

  void paused(History.Pause p) {
    pauses.add(p);
  }

  boolean kill(int holder, Duration downFor) {
    return holders.get(holder).kill(downFor);
  }

  /** Connections from acting holders (and their COMMANDs) to server {@code index} (0-based). */
  int actingConnections(int index) {
    int n = 0;
    for (int h = 0; h < holders.size(); h++) {
      if (holders.get(h).acting()) {
        n += proxies.get(h).get(index).connectionCount();
      }
    }
    return n;
  }

  /** Whether a holder could not even be started (say, no {@code java}): the trial cannot go on. */
  Optional<IOException> failure() {
    return holders.stream().map(SupervisedHolder::failure).flatMap(Optional::stream).findFirst();
  }

  /**
   * Ends (SIGKILL) the processes of every COMMAND whose term ended more than {@code after} ago and
   * that still run: by then they are findings already, and left alone they would load the machine
   * for the rest of the run. Returns how many it ended now.
   */
  int sweepOrphans(long nowNanos, Duration after) {
    int n = 0;
    for (SupervisedHolder holder : holders) {
      for (SupervisedHolder.Life life : holder.lives()) {
        Set<String> ended = new HashSet<>();
        for (ActorLogs.Edge e : life.edges()) {
          if (!e.granted() && nowNanos - e.nanos() > after.toNanos()) {
            ended.add(termKey(e.term(), e.incarnation()));
          }
        }
        boolean lifeOver = life.ended() && nowNanos - life.endNanos() > after.toNanos();
        for (Path cmd : list(life.dir, true)) {
          String term = termOf(cmd);
          if (term != null && (lifeOver || ended.contains(term))) {
            n += endProcesses(cmd);
          }
        }
      }
    }
    return n;
  }

  /** Stops supervising and kills every holder process (amlease's reapers then end their groups). */
  void stopHolders() {
    holders.forEach(SupervisedHolder::close);
  }

  /** Everything recorded, cut at {@code endNanos}, as the checker reads it. */
  TortureHistory history(long originNanos, long endNanos, UptimeClock clock) {
    List<SupervisedHolder.Life> lives = holders.stream().flatMap(h -> h.lives().stream()).toList();
    return LaneHistory.of(contender, lives, ActorLogs.commands(dir, clock), pauses,
        versions.stream().filter(o -> o.nanos() - endNanos <= 0).map(Observed::version).toList(),
        originNanos, endNanos).withLeaseDeletions(List.copyOf(deletions));
  }

  @Override
  public void close() {
    stopHolders();
    reader.close();
    proxies.forEach(links -> links.forEach(FaultProxy::close));
  }

  private int endProcesses(Path cmd) {
    int n = 0;
    for (Path f : list(cmd, false)) {
      if (!f.getFileName().toString().endsWith(".pid")) {
        continue;
      }
      try {
        long pid = Long.parseLong(Files.readString(f).strip());
        if (!swept.contains(pid) && ProcessSignals.killIfMarked(pid, token)) {
          swept.add(pid);
          n++;
        }
      } catch (IOException | NumberFormatException e) {
        // Written but not yet complete: the next sweep reads it.
      }
    }
    return n;
  }

  /** A COMMAND's term as {@link #termKey} writes it, null while its term file is incomplete. */
  private static String termOf(Path cmd) {
    try {
      String[] t = Files.readString(cmd.resolve("term")).strip().split("\\s+");
      return t[0].isEmpty() ? null : termKey(Long.parseLong(t[0]), t.length > 1 ? t[1]
          : ActorLogs.NO_INCARNATION);
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }

  private static String termKey(long term, String incarnation) {
    return term + " " + incarnation;
  }

  private static List<Path> list(Path d, boolean directories) {
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(d)) {
      return s.filter(p -> Files.isDirectory(p) == directories).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(hostPort.substring(0, colon),
        Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
