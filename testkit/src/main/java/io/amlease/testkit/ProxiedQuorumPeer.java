package io.amlease.testkit;

import java.util.Map;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.server.quorum.MultipleAddresses;
import org.apache.zookeeper.server.quorum.QuorumCnxManager;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.auth.NullQuorumAuthLearner;
import org.apache.zookeeper.server.quorum.auth.NullQuorumAuthServer;

/**
 * A quorum peer whose election connections always go to the address its <em>own</em> configuration
 * gives for the other server — for {@link ZkEnsemble}, that server's fault proxy.
 *
 * <p>Why: in ZooKeeper 3.9 only the higher server id keeps an election connection. When a lower id
 * dials a higher one, its first message carries its own election address, and the higher id hangs up
 * and dials back on that address ({@code QuorumCnxManager.handleConnection} →
 * {@code connectOne(sid, electionAddr)}). A server binds the very address it advertises, so no
 * configuration can make the call-back go through a proxy while every server binds loopback only
 * ({@code quorumListenOnAllIPs} would bind 0.0.0.0). Dialling the configured address instead is what
 * a network that routes every peer link through a middlebox would force; the server reached is the
 * same, so the protocol is unchanged.
 *
 * <p>{@code initiateConnectionAsync} is the one public method every election dial goes through in
 * 3.9.5. {@code ZkEnsembleTest} counts the open connections to the servers' real peer ports, so a
 * ZooKeeper upgrade that adds another path fails there instead of silently bypassing the proxies.
 */
final class ProxiedQuorumPeer extends QuorumPeer {

    ProxiedQuorumPeer() throws SaslException {
        super();
    }

    @Override
    public QuorumCnxManager createCnxnManager() {
        // As QuorumPeer.createCnxnManager, whose auth fields are package-private: the ensemble never
        // enables quorum SASL, so the null authenticators are the ones QuorumPeer would use too.
        if (quorumSaslEnableAuth) {
            throw new IllegalStateException("ZkEnsemble does not support quorum SASL");
        }
        int configured = Integer.getInteger(QUORUM_CNXN_TIMEOUT_MS, -1);
        int timeout = configured > 0 ? configured : tickTime * syncLimit;
        return new ConfiguredAddressCnxManager(this, getMyId(), getView(), timeout, getQuorumListenOnAllIPs(),
                quorumCnxnThreadsSize);
    }

    private static final class ConfiguredAddressCnxManager extends QuorumCnxManager {
        private final QuorumPeer self;

        ConfiguredAddressCnxManager(QuorumPeer self, long mySid, Map<Long, QuorumServer> view, int timeout,
                                    boolean listenOnAllIPs, int threads) {
            super(self, mySid, view, new NullQuorumAuthServer(), new NullQuorumAuthLearner(), timeout,
                    listenOnAllIPs, threads, false);
            this.self = self;
        }

        @Override
        public boolean initiateConnectionAsync(MultipleAddresses advertised, Long sid) {
            QuorumServer configured = self.getView().get(sid);
            return super.initiateConnectionAsync(configured == null ? advertised : configured.electionAddr, sid);
        }
    }
}
