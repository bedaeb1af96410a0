/**
 * The create request the benchmark sends: every field of the specification, consistent in every amount
 * (a copy of test/support/application-request.ts as of 2026-11, kept here so that the benchmark does not
 * depend on the test helpers' layout). bench/floors/do-create.js stores the rows this request becomes.
 */
export function createBody(orderNumber: string): string {
  return JSON.stringify({
    type: "DEFERRED_PAYMENT",
    agreementTermsAndConditions: true,
    customer: {
      fullName: "Jana Nováková",
      email: "jana.novakova@example.com",
      phone: "+420777123456",
      fraudPreventionData: {
        transactionsNumber: 12,
        cashlessTransactionsNumber: 9,
        transactionsSum: { amount: 1250000, currency: "CZK" },
        cashlessTransactionsSum: { amount: 990000, currency: "CZK" },
      },
    },
    order: {
      number: orderNumber,
      reservationDate: "2026-11-22T10:15:00+01:00",
      totalPrice: { amount: 200000, currency: "CZK" },
      totalVat: [
        { vatRate: 21, amount: 31400, currency: "CZK" },
        { vatRate: 12, amount: 1714, currency: "CZK" },
      ],
      items: [
        {
          code: "KB-01",
          ean: "8591234567890",
          name: "Mechanical keyboard",
          type: "PHYSICAL",
          variant: "black",
          producer: "Keys & Co",
          categories: ["computers", "keyboards"],
          quantity: 2,
          unitPrice: { amount: 76000, currency: "CZK" },
          totalPrice: { amount: 152000, currency: "CZK" },
          unitVat: { vatRate: 21, amount: 13190, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 26380, currency: "CZK" },
          productUrl: "https://shop.example.com/kb-01",
        },
        {
          code: "BK-7",
          name: "Guide to typing",
          type: "PHYSICAL",
          quantity: 1,
          totalPrice: { amount: 16000, currency: "CZK" },
          totalVat: { vatRate: 12, amount: 1714, currency: "CZK" },
        },
        {
          code: "SHIP",
          name: "Delivery",
          type: "SHIPPING_FEE",
          quantity: 1,
          totalPrice: { amount: 32000, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 5020, currency: "CZK" },
        },
      ],
      addresses: [
        {
          name: "Jana Nováková",
          city: "Praha",
          country: "CZ",
          streetAddress: "Vinohradská",
          streetNumber: "12",
          zip: "12000",
          addressType: "BILLING",
        },
      ],
      variableSymbols: ["2026000123"],
      deliveryCarrier: { carrierId: "PPL" },
      channel: "ESHOP",
    },
    merchantUrls: {
      approvedRedirect: "https://shop.example.com/financing/approved?order=1",
      rejectedRedirect: "https://shop.example.com/financing/rejected",
      notificationEndpoint: "https://shop.example.com/financing/notifications",
    },
  });
}
