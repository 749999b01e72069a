import type { CliCommand } from '../common/cli-command';
import { CLUSTER_USAGE } from '../cluster/cluster-options';

export const clusterCommand: CliCommand = {
  name: 'cluster',
  summary: 'A local cluster: MariaDB, ActiveMQ, a console, two engines and the demo executor (npm run cluster)',
  help: `${CLUSTER_USAGE}

Starts the private MariaDB and ActiveMQ of scripts/ (installed with apt when missing, as root;
data under .tmp/), database "baton_cluster" (kept across restarts), a console, the engines
(group "default") and the demo executor, each line of their output prefixed with its name. On
first start it creates the demo tenant with its admin and tasks through the console's REST API.
Prints the URLs and logins once a demo run has SUCCEEDED. Ctrl-C stops what it started.

  --console-port N   console port (0: any free port)                      default 8080
  --engine-port N    first engine's port, the others follow (0: any free)  default 8090
  --engines N        engine nodes                                          default 2
  --fresh            drop the cluster's database and state first
  --no-executor      no demo executor (run yours with the printed variables)
  --ha               highly available: a 3-node Galera cluster behind HAProxy instead of one
                     MariaDB, two ActiveMQ brokers in a network, two consoles behind HAProxy
                     (http://localhost:18350); ports 18300-18499 (docs/OPERATIONS.md)
  --db=replica       with --ha: a MariaDB primary and its semi-synchronous replica instead of
                     Galera (scripts/mariadb-replica.sh; consoles at http://localhost:18950);
                     when the primary dies, promote the replica: scripts/mariadb-replica.sh promote

Variables:
  BATON_DB_URL             use this MySQL/MariaDB database instead of starting MariaDB (created when missing)
  BATON_BROKER_URL         use this ActiveMQ STOMP broker instead of starting ActiveMQ
  BATON_OPERATOR_PASSWORD  password of the operator "operator"      default operator-password
  BATON_DEMO_PASSWORD      password of the demo admin "demo"        default demo-password
  BATON_MARIADB_PORT, BATON_ACTIVEMQ_STOMP_PORT   ports of the private servers   default 3407, 61613`,
  async run(args) {
    const { parseClusterOptions } = await import('../cluster/cluster-options');
    const options = parseClusterOptions(args);
    const { runCluster } = await import('../cluster/cluster');
    await runCluster(options);
  },
};
