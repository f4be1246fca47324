import pg from "pg";

/** A node of a plan as `EXPLAIN (ANALYZE, FORMAT JSON)` gives it, as far as the plan specs read it. */
export interface PlanNode {
  "Node Type": string;
  "Actual Rows": number;
  "Heap Fetches"?: number;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** The plan's nodes, the root first. */
export function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** A session whose prepared statements run by their generic plan, as the app's do (see Database.query). */
export async function genericPlanSession(url: string): Promise<pg.Client> {
  const session = new pg.Client({ connectionString: url, options: "-c plan_cache_mode=force_generic_plan" });
  await session.connect();
  return session;
}

/** The plan `statement` (an EXECUTE, or any statement) ran by, with what each node found. */
export async function explainedPlan(session: pg.Client, statement: string): Promise<PlanNode> {
  const { rows } = await session.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`,
  );
  return (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
}
