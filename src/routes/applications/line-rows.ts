import type { StoredLine } from "../../db/applications";
import { newId } from "../../ids";
import type { OrderItemInput } from "./schema";

/** Order lines as first stored, from the items of a create or change-order request. */
export function lineRows(applicationId: string, items: readonly OrderItemInput[], at: number): StoredLine[] {
  return items.map((item, position) => ({
    id: newId(at),
    applicationId,
    position,
    code: item.code,
    ean: item.ean ?? null,
    name: item.name,
    type: item.type,
    variant: item.variant ?? null,
    producer: item.producer ?? null,
    categories: item.categories ?? null,
    productUrl: item.productUrl ?? null,
    quantity: item.quantity,
    unitPriceAmount: item.unitPrice?.amount ?? null,
    totalPriceAmount: item.totalPrice.amount,
    unitVatRate: item.unitVat?.vatRate ?? null,
    unitVatAmount: item.unitVat?.amount ?? null,
    totalVatRate: item.totalVat.vatRate,
    totalVatAmount: item.totalVat.amount,
    state: "PROCESSING",
    sentDate: null,
    deliveryDate: null,
    deliveryTrackingNumber: null,
    createdAt: at,
    updatedAt: at,
  }));
}
