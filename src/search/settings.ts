/** How the search runs: the query language's limits, the time budget, and (in tests) a strategy forced. */
import { DEFAULT_LIMITS, type Limits } from './parse.ts';

export interface SearchSettings {
  limits: Limits;
  /** A query still running after this long ends with OverBudget (503). */
  budgetMs: number;
  /** Tests run every query through one strategy where it can answer it (else SQL); the board lets the planner choose ('auto'). */
  strategy?: StrategyName | 'auto';
}

export const DEFAULT_SEARCH: SearchSettings = { limits: DEFAULT_LIMITS, budgetMs: 2_000 };

export type StrategyName = 'sets' | 'columns' | 'driven' | 'sql';
