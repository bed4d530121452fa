package io.amlease.it;

import java.io.File;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;
import org.apache.curator.retry.RetryForever;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The baseline the field cluster's side-by-side report runs against amlease (issue 25, item 4): an
 * ApplicationMaster whose leadership is a plain Curator {@code LeaderLatch}, as a Flink or service
 * master on YARN elects itself today. It runs the master while the latch says it leads and stops it
 * when the latch says it no longer does; nothing else. Its policy is Curator's default (leadership
 * lost on SUSPENDED) or {@code SessionConnectionStateErrorPolicy} (kept until LOST, as Flink's
 * tolerant mode does). The master gets {@code AMLEASE_EPOCH} = the attempt number, so it records
 * the same files as under amlease's AM. Like a Flink master it keeps one worker while it leads: it
 * adopts the workers of earlier attempts the RM hands over (the application keeps containers across
 * attempts) and asks for one when none runs, so the report can count worker restarts for it too.
 *
 * <p>Arguments: connect string, latch path, {@code standard} or {@code session}, session timeout
 * in ms, the master's shell script, the worker's shell script.
 */
public final class LatchAm {
    private LatchAm() {}

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String path = args[1];
        boolean sessionPolicy = args[2].equals("session");
        int sessionTimeoutMs = Integer.parseInt(args[3]);
        String script = args[4];
        String workerScript = args[5];
        int attempt = ContainerId.fromString(System.getenv("CONTAINER_ID")).getApplicationAttemptId()
                .getAttemptId();

        AMRMClient<ContainerRequest> rm = AMRMClient.createAMRMClient();
        rm.init(new YarnConfiguration());
        rm.start();
        RegisterApplicationMasterResponse registered = rm.registerApplicationMaster("", 0, "");
        NMClient nm = NMClient.createNMClient();
        nm.init(new YarnConfiguration());
        nm.start();
        // The RM hands over every container of earlier attempts it still knows, the old AM's too
        // while it has not yet expired it; only the workers are this AM's to keep.
        Set<ContainerId> workers = new HashSet<>();
        for (Container c : registered.getContainersFromPreviousAttempts()) {
            if ((c.getId().getContainerId() & ContainerId.CONTAINER_ID_BITMASK) != 1) {
                workers.add(c.getId());
            }
        }
        boolean asked = false;
        System.err.println(System.currentTimeMillis() + " adopted " + workers);

        CuratorFramework zk = CuratorFrameworkFactory.builder().connectString(connect)
                .sessionTimeoutMs(sessionTimeoutMs).connectionTimeoutMs(Math.min(15_000, sessionTimeoutMs))
                .retryPolicy(new RetryForever(500))
                .connectionStateErrorPolicy(sessionPolicy ? new SessionConnectionStateErrorPolicy()
                        : new StandardConnectionStateErrorPolicy())
                .build();
        zk.start();
        Master master = new Master(script, attempt);
        LeaderLatch latch = new LeaderLatch(zk, path, "attempt-" + attempt);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                System.err.println(System.currentTimeMillis() + " isLeader");
                master.start();
            }

            @Override
            public void notLeader() {
                System.err.println(System.currentTimeMillis() + " notLeader");
                master.stop();
            }
        });
        latch.start();

        // Heartbeats, and one worker while leading; an RM that tells this attempt to go is obeyed (a
        // node back from LOST).
        while (true) {
            try {
                if (latch.hasLeadership() && workers.isEmpty() && !asked) {
                    rm.addContainerRequest(new ContainerRequest(Resource.newInstance(128, 1), null, null,
                            Priority.newInstance(1)));
                    asked = true;
                }
                AllocateResponse r = rm.allocate(0f);
                if (r.getAMCommand() != null) {
                    System.err.println(System.currentTimeMillis() + " RM: " + r.getAMCommand());
                    master.stop();
                    System.exit(1);
                }
                for (Container c : r.getAllocatedContainers()) {
                    if (asked && workers.isEmpty()) {
                        rm.removeContainerRequest(new ContainerRequest(c.getResource(), null, null,
                                c.getPriority()));
                        asked = false;
                        nm.startContainer(c, ContainerLaunchContext.newInstance(Map.of(), Map.of(),
                                List.of("sh " + workerScript), null, null, null));
                        workers.add(c.getId());
                        System.err.println(System.currentTimeMillis() + " started worker " + c.getId());
                    } else {
                        rm.releaseAssignedContainer(c.getId());
                    }
                }
                for (ContainerStatus done : r.getCompletedContainersStatuses()) {
                    workers.remove(done.getContainerId());
                    System.err.println(System.currentTimeMillis() + " worker " + done.getContainerId()
                            + " completed: " + done.getExitStatus());
                }
            } catch (Exception e) {
                System.err.println(System.currentTimeMillis() + " heartbeat: " + e);
            }
            TimeUnit.SECONDS.sleep(1);
        }
    }

    /** The master's process, started and stopped on the latch's word. */
    private static final class Master {
        private final String script;
        private final int attempt;
        private Process process;

        Master(String script, int attempt) {
            this.script = script;
            this.attempt = attempt;
        }

        synchronized void start() {
            if (process != null && process.isAlive()) {
                return;
            }
            try {
                ProcessBuilder pb = new ProcessBuilder(List.of("sh", script)).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(new File("/dev/null")));
                pb.environment().put("AMLEASE_EPOCH", Integer.toString(attempt));
                process = pb.start();
            } catch (Exception e) {
                System.err.println("master did not start: " + e);
            }
        }

        synchronized void stop() {
            if (process != null) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process = null;
            }
        }
    }
}
