import type { ScopedDocument } from '@checkout/mongo';
import type { PaymentDestinationView } from '@checkout/contracts';

// The stored shapes of orders' reference data (reference-data.store.ts), apart so that a presenter may name them.

export interface CustomerDocument extends ScopedDocument {
  _id: string;
  email: string;
  name?: string;
  phone?: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface LocationDocument extends ScopedDocument {
  _id: string;
  name: string;
  createdAt: Date;
}

export type DestinationStatus = PaymentDestinationView['status'];

export interface PaymentDestinationDocument extends ScopedDocument {
  _id: string;
  address: string;
  network: string;
  status: DestinationStatus;
  verified: boolean;
  createdAt: Date;
  updatedAt: Date;
}
