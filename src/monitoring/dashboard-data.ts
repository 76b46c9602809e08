/** The plain data of /dashboard: gathered by src/services/monitoring, rendered by src/protocol/html/dashboard-page.ts. */
import type { MinuteRate } from './recent-rates.js';

export interface DayCount { day: string; stored: number }
export interface ViewLagFigure { database: string; designDoc: string; behind: number }
export interface DestinationState { destination: string; lastRun: string | null; outcome: string; reason: string | null; docsSent: number | null }

export interface StoreState {
  up: boolean;
  responseMs: number | null;
  error: string | null;
  documentsStored: number | null;
  incomingBacklog: number | null;
  /** Arrived documents whose refusal may pass, kept to be tried again (src/services/distribute/parked-documents.ts). */
  incomingParked: number | null;
  viewLag: ViewLagFigure[];
  destinations: DestinationState[];
  lastInSync: string | null;
}

export interface DashboardData extends StoreState {
  nodeName: string;
  /** The process that answered: the request rates are its own. */
  pid: number;
  generated: string;
  embedded: { restarts: number } | null;
  perDay: DayCount[];
  perDayBehind: boolean;
  lastHour: MinuteRate[];
}
