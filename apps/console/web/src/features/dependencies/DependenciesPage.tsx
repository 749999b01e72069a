import { Graph, layout } from '@dagrejs/dagre';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, del, get, post, qs } from '../../shared/api';
import { CodeOptions, ErrorBox, Field, PageHeader, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { fmtDuration } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { useRunEvents } from '../../shared/live';
import { APPROVAL_OUTCOMES, APPROVER_ROLES, DEPENDENCY_CONDITIONS, type Dependency, type Page, type Run, type Task } from '../../shared/model';
import { Link, navigate, useLocation } from '../../shared/router';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { FlowLegend, RecentFlows } from './FlowPicker';

const NODE_W = 170;
/** The fields of the edge form, by the API's names: a refusal naming one (or a part, `approval.users[1]`) is shown beside it. */
const EDGE_FIELDS = ['parentTaskId', 'childTaskId', 'condition', 'approval.role', 'approval.users', 'approval.timeoutMs', 'approval.onTimeout'] as const;
const NODE_H = 40;

interface Laid {
  width: number;
  height: number;
  nodes: Array<{ id: number; name: string; x: number; y: number; paused: boolean; linked: boolean }>;
  edges: Array<{ id: number; points: Array<{ x: number; y: number }>; condition: string; parent: string; child: string }>;
}

/** Each task's newest run of the flow (a retried step keeps one row; a task may run once per flow). */
function newestByTask(runs: Run[]): Map<number, Run> {
  const out = new Map<number, Run>();
  for (const r of runs) {
    const seen = out.get(r.taskId);
    if (!seen || r.updatedAt > seen.updatedAt || (r.updatedAt === seen.updatedAt && r.id > seen.id)) out.set(r.taskId, r);
  }
  return out;
}

/** The DAG laid out by dagre (layered, left to right): parents before children. */
function layoutDag(tasks: Task[], deps: Dependency[], showAll: boolean): Laid {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 70, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const linked = new Set(deps.flatMap((d) => [d.parentTaskId, d.childTaskId]));
  const shown = tasks.filter((x) => showAll || linked.has(x.id));
  for (const task of shown) g.setNode(String(task.id), { width: NODE_W, height: NODE_H });
  for (const d of deps) if (g.hasNode(String(d.parentTaskId)) && g.hasNode(String(d.childTaskId))) g.setEdge(String(d.parentTaskId), String(d.childTaskId), {}, String(d.id));
  layout(g);
  const graph = g.graph() as { width?: number; height?: number };
  return {
    width: Math.max(graph.width ?? 0, 200),
    height: Math.max(graph.height ?? 0, 60),
    nodes: shown.map((x) => {
      const n = g.node(String(x.id)) as { x: number; y: number };
      return { id: x.id, name: x.name, x: n.x, y: n.y, paused: x.paused, linked: linked.has(x.id) };
    }),
    edges: deps
      .filter((d) => g.hasNode(String(d.parentTaskId)) && g.hasNode(String(d.childTaskId)))
      .map((d) => ({
        id: d.id,
        points: (g.edge({ v: String(d.parentTaskId), w: String(d.childTaskId), name: String(d.id) }) as { points: Array<{ x: number; y: number }> }).points,
        condition: d.condition,
        parent: d.parentName,
        child: d.childName,
      })),
  };
}

export function DependenciesPage({ canWrite }: { canWrite: boolean }) {
  const toast = useToast();
  const tasks = useLoad(() => get<Page<Task>>('/tasks?limit=500'), []);
  const deps = useLoad(() => get<Dependency[]>('/dependencies'), []);
  const [parent, setParent] = useState('');
  const [child, setChild] = useState('');
  const [condition, setCondition] = useState('ON_SUCCESS');
  // An approval step on the edge: a person decides before the child runs (MANUAL, Approval steps).
  const [gated, setGated] = useState(false);
  const [approverRole, setApproverRole] = useState('TENANT_ADMIN');
  const [approverUsers, setApproverUsers] = useState('');
  const [deadlineHours, setDeadlineHours] = useState('24');
  const [onTimeout, setOnTimeout] = useState('REJECT');
  const [showAll, setShowAll] = useState(false);
  // A refusal: each reason beside its field (`_`: what names none of them), and the cycle an edge would close.
  const [error, setError] = useState<{ cycle?: string[]; fields: Record<string, string> } | null>(null);
  const laid = useMemo(() => (tasks.data && deps.data ? layoutDag(tasks.data.items, deps.data, showAll) : null), [tasks.data, deps.data, showAll]);

  // The flow view: `?flow=<root run id>` colours each task's node by its run in that flow, live,
  // and a node then opens the run.
  const { search } = useLocation();
  const flowId = Number(search.get('flow')) > 0 ? Number(search.get('flow')) : null;
  const [flowInput, setFlowInput] = useState(flowId === null ? '' : String(flowId));
  const flow = useLoad(() => (flowId === null ? Promise.resolve(null) : get<Page<Run>>(`/runs${qs({ flowId, limit: 500 })}`)), [flowId]);
  const [flowRuns, setFlowRuns] = useState<Map<number, Run>>(new Map());
  useEffect(() => setFlowRuns(newestByTask(flow.data?.items ?? [])), [flow.data]);
  useRunEvents((r) => {
    if (flowId !== null && r.flowId === flowId) setFlowRuns((m) => newestByTask([...m.values(), r]));
  });

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const users = approverUsers.split(',').map((u) => u.trim()).filter(Boolean);
      // The hours as typed: a bad one goes to the API as it is and comes back named (approval.timeoutMs).
      const hours = Number(deadlineHours);
      const approval = gated ? { ...(approverRole ? { role: approverRole } : {}), users, timeoutMs: deadlineHours.trim() && Number.isFinite(hours) ? Math.round(hours * 3_600_000) : deadlineHours, onTimeout } : undefined;
      const d = await post<Dependency>('/dependencies', { parentTaskId: Number(parent), childTaskId: Number(child), condition, ...(approval ? { approval } : {}) });
      toast.notify(t('Edge {{parent}} → {{child}} added', { parent: d.parentName, child: d.childName }));
      await deps.reload();
    } catch (err) {
      setError({ cycle: err instanceof ApiError ? err.body.cycle : undefined, fields: errorsOf(err, EDGE_FIELDS) });
    }
  };
  const remove = async (d: Dependency) => {
    try {
      await del(`/dependencies/${d.id}`);
      toast.notify(t('Edge {{parent}} → {{child}} removed', { parent: d.parentName, child: d.childName }));
      await deps.reload();
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };
  const taskOptions = (tasks.data?.items ?? []).map((x) => (
    <option key={x.id} value={x.id}>
      {x.name}
    </option>
  ));

  return (
    <>
      <PageHeader title={t('Dependencies')} />
      <ErrorBox error={tasks.error ?? deps.error} />
      {canWrite ? (
        <form className="filters" onSubmit={(e) => void add(e)} aria-label={t('Add a dependency edge')}>
          <Field label={t('Parent task (runs first)')} error={error?.fields.parentTaskId}>
            {(p) => (
              <select {...p} name="parent" value={parent} onChange={(e) => setParent(e.target.value)} required>
                <option value="">{t('Choose…')}</option>
                {taskOptions}
              </select>
            )}
          </Field>
          <Field label={t('Child task (runs after)')} error={error?.fields.childTaskId}>
            {(p) => (
              <select {...p} name="child" value={child} onChange={(e) => setChild(e.target.value)} required>
                <option value="">{t('Choose…')}</option>
                {taskOptions}
              </select>
            )}
          </Field>
          <Field label={t('Condition')} error={error?.fields.condition}>
            {(p) => (
              <select {...p} name="condition" value={condition} onChange={(e) => setCondition(e.target.value)}>
                <CodeOptions codes={DEPENDENCY_CONDITIONS} />
              </select>
            )}
          </Field>
          <label className="check">
            <input type="checkbox" name="gated" checked={gated} onChange={(e) => setGated(e.target.checked)} /> {t('A person approves before the child runs')}
          </label>
          {gated ? (
            <>
              <Field label={t('Who may decide: a role')} error={error?.fields['approval.role']}>
                {(p) => (
                  <select {...p} name="approverRole" value={approverRole} onChange={(e) => setApproverRole(e.target.value)}>
                    <option value="">{t('None: the users named')}</option>
                    <CodeOptions codes={APPROVER_ROLES} />
                  </select>
                )}
              </Field>
              <Field label={t('or users (comma-separated)')} error={error?.fields['approval.users']} hint={t('Usernames, or api-key:<name> for an API key')}>
                {(p) => <input {...p} name="approverUsers" value={approverUsers} onChange={(e) => setApproverUsers(e.target.value)} />}
              </Field>
              <Field label={t('Deadline (hours)')} error={error?.fields['approval.timeoutMs']}>
                {(p) => <input {...p} name="deadlineHours" inputMode="decimal" value={deadlineHours} onChange={(e) => setDeadlineHours(e.target.value)} />}
              </Field>
              <Field label={t('At the deadline')} error={error?.fields['approval.onTimeout']}>
                {(p) => (
                  <select {...p} name="onTimeout" value={onTimeout} onChange={(e) => setOnTimeout(e.target.value)}>
                    <CodeOptions codes={APPROVAL_OUTCOMES} />
                  </select>
                )}
              </Field>
            </>
          ) : null}
          <div className="field field-button">
            <button type="submit" className="btn-primary" disabled={!parent || !child}>
              {t('Add edge')}
            </button>
          </div>
        </form>
      ) : null}
      {error?.cycle || error?.fields._ ? (
        <div className="error-box" role="alert" data-dependency-error>
          {error.cycle ? (
            <>
              <strong>{t('Refused: that edge would make a cycle.')}</strong>{' '}
              <span data-cycle translate="no">
                {error.cycle.join(' → ')}
              </span>
            </>
          ) : (
            error.fields._
          )}
        </div>
      ) : null}
      <form
        className="filters"
        aria-label={t('Show a flow run')}
        onSubmit={(e) => {
          e.preventDefault();
          navigate(flowInput.trim() ? `/dependencies?flow=${encodeURIComponent(flowInput.trim())}` : '/dependencies');
        }}
      >
        <Field label={t('Flow (root run #)')} hint={t('Colours each task by its run in that flow, live.')}>
          {(p) => <input {...p} name="flow" inputMode="numeric" value={flowInput} onChange={(e) => setFlowInput(e.target.value)} />}
        </Field>
        <RecentFlows onPick={(id) => (setFlowInput(String(id)), navigate(`/dependencies?flow=${id}`))} />
        <div className="field field-button">
          <button type="submit">{t('Show flow')}</button>
        </div>
        {flowId !== null ? (
          <div className="field field-button">
            <button type="button" className="btn-ghost" onClick={() => (setFlowInput(''), navigate('/dependencies'))}>
              {t('Clear')}
            </button>
          </div>
        ) : null}
      </form>
      <ErrorBox error={flow.error} />
      {flowId !== null && flow.data && flow.data.items.length === 0 ? <p className="muted">{t('No run of flow #{{id}}.', { id: flowId })}</p> : null}
      {flowId !== null ? <FlowLegend /> : null}
      <label className="check">
        <input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} /> {t('Show tasks without dependencies')}
      </label>
      {laid && laid.nodes.length === 0 ? (
        showAll ? (
          <EmptyState title={t('No tasks yet.')}>
            {t('Create them from')} <Link to="/tasks">{t('Tasks')}</Link>
            {t(', then link them here.')}
          </EmptyState>
        ) : (
          <EmptyState title={t('No dependencies to draw yet.')}>
            {canWrite ? t('Add an edge with the form above, or tick “Show tasks without dependencies” to see every task.') : t('Tick “Show tasks without dependencies” to see every task.')}
          </EmptyState>
        )
      ) : laid ? (
        <div className="graph-wrap">
          <svg
            className="dag"
            role="img"
            aria-label={t('Dependency graph: {{edges}}', { edges: deps.data?.map((d) => t('{{parent}} to {{child}}', { parent: d.parentName, child: d.childName })).join(', ') || t('no edges') })}
            viewBox={`0 0 ${laid.width} ${laid.height}`}
            width={laid.width}
            height={laid.height}
            data-edges={laid.edges.length}
          >
            <defs>
              <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
              </marker>
            </defs>
            {laid.edges.map((e) => (
              <g key={e.id} className={`dag-edge cond-${e.condition}`} data-edge={`${e.parent}->${e.child}`}>
                <polyline fill="none" points={e.points.map((p) => `${p.x},${p.y}`).join(' ')} markerEnd="url(#arrow)" />
                {e.condition !== 'ON_SUCCESS' ? (
                  <text x={e.points[Math.floor(e.points.length / 2)].x} y={e.points[Math.floor(e.points.length / 2)].y - 6} textAnchor="middle" className="edge-label">
                    {codeLabel(e.condition)}
                  </text>
                ) : null}
              </g>
            ))}
            {laid.nodes.map((n) => {
              const run = flowRuns.get(n.id);
              const to = run ? `/runs/${run.id}` : `/tasks/${n.id}`;
              return (
              <g
                key={n.id}
                className={`dag-node ${n.paused ? 'paused' : ''} ${run ? `flow-${run.state}` : flowId !== null ? 'flow-none' : ''}`}
                transform={`translate(${n.x - NODE_W / 2}, ${n.y - NODE_H / 2})`}
                data-node={n.name}
                data-run-state={run?.state}
                tabIndex={0}
                role="link"
                aria-label={run ? t('Task {{name}}: run {{id}} {{state}}', { name: n.name, id: run.id, state: codeLabel(run.state) }) : t('Task {{name}}', { name: n.name })}
                onClick={() => navigate(to)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') navigate(to);
                }}
              >
                <rect width={NODE_W} height={NODE_H} rx={6} />
                <text x={NODE_W / 2} y={NODE_H / 2 + 5} textAnchor="middle">
                  {n.name.length > 22 ? `${n.name.slice(0, 21)}…` : n.name}
                </text>
                {run ? <title>{t('run #{{id}}: {{state}}', { id: run.id, state: codeLabel(run.state) })}</title> : null}
              </g>
              );
            })}
          </svg>
        </div>
      ) : null}
      <h2>{t('Edges')}</h2>
      <DataTable
        label={t('Dependency edges')}
        rows={deps.data}
        rowKey={(d) => d.id}
        rowProps={(d) => ({ 'data-edge-row': `${d.parentName}->${d.childName}` })}
        empty={
          <EmptyState title={t('No dependencies yet.')}>
            {t("An edge runs a child task when its parent's run ends (on success, failure or either).")}{' '}
            {canWrite ? t('Add one with the form above.') : t('A tenant admin adds them.')}
          </EmptyState>
        }
        columns={[
          { header: t('Parent'), cellProps: () => ({ translate: 'no' as const }), cell: (d) => d.parentName },
          { header: t('Child'), cellProps: () => ({ translate: 'no' as const }), cell: (d) => d.childName },
          { header: t('Condition'), cell: (d) => codeLabel(d.condition) },
          {
            header: t('Approval'),
            cellProps: (d) => ({ 'data-edge-approval': d.approval ? d.approval.onTimeout : 'NONE' }),
            cell: (d) =>
              d.approval
                ? t('{{approvers}} within {{timeout}}, then {{outcome}}', {
                    approvers: [...(d.approval.role ? [t('any {{role}}', { role: codeLabel(d.approval.role) })] : []), ...d.approval.users].join(', '),
                    timeout: fmtDuration(d.approval.timeoutMs),
                    outcome: codeLabel(d.approval.onTimeout),
                  })
                : '—',
          },
          canWrite && {
            header: t('Actions'),
            cell: (d) => (
              <button type="button" className="btn-small" onClick={() => void remove(d)} aria-label={t('Remove edge {{parent}} to {{child}}', { parent: d.parentName, child: d.childName })}>
                {t('Remove')}
              </button>
            ),
          },
        ]}
      />
    </>
  );
}
